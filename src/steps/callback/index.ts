import { deliver } from '../../webhooks/index.js';
import type { Step } from '../step.js';

/** The `callback` step: tells each URL of `callback`, in order, that the job succeeded. */
export function callbackStep(): Step {
  return { name: 'callback', run: (input) => deliver(input, 'callback') };
}
