import { deliver } from '../../webhooks/index.js';
import type { Step } from '../step.js';

/** The `error` step: reports a terminal failure to each URL of `error`, in order. */
export function errorStep(): Step {
  return { name: 'error', run: (input) => deliver(input, 'error') };
}
