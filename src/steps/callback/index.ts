import { deliver } from '../../webhooks/index.js';
import type { Step } from '../../tickets/step.js';
import { deliveryInput } from '../delivery-input.js';

/** The `callback` step: tells each URL of `callback`, in order, that the job succeeded. */
export function callbackStep(): Step {
  return { name: 'callback', run: async (input) => ({ ...(await deliver(deliveryInput(input), 'callback')), artifacts: [] }) };
}
