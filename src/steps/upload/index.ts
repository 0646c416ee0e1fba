import { deliver } from '../../webhooks/index.js';
import type { Step } from '../../tickets/step.js';
import { deliveryInput } from '../delivery-input.js';

/** The `upload` step: the output to each URL of `upload` in order (or to a DAM); 2xx ships it. */
export function uploadStep(): Step {
  return { name: 'upload', run: async (input) => ({ ...(await deliver(deliveryInput(input), 'upload')), artifacts: [] }) };
}
