import { deliver } from '../../webhooks/index.js';
import type { Step } from '../../tickets/step.js';
import { deliveryInput } from '../delivery-input.js';

/** The `error` step: reports a terminal failure to each URL of `error`, in order. */
export function errorStep(): Step {
  return { name: 'error', run: async (input) => ({ ...(await deliver(deliveryInput(input), 'error')), artifacts: [] }) };
}
