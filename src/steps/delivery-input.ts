import type { StepInput } from '../tickets/step.js';
import type { DeliveryInput } from '../webhooks/index.js';

/** What a webhook step hands to the delivery: the claimed ticket, only the parameters a delivery reads, and the step's configuration. */
export function deliveryInput({ ctx, ticket, params, config }: StepInput): DeliveryInput {
  const { callback, error, upload, custom } = params;
  return { ctx, ticket, params: { callback, error, upload, custom }, config };
}
