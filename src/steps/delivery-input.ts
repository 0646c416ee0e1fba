import type { StepInput } from '../tickets/step.js';
import type { DeliveryInput } from '../webhooks/index.js';

/** What a webhook step hands to the delivery: the claimed ticket and only the parameters a delivery reads. */
export function deliveryInput({ ctx, ticket, params }: StepInput): DeliveryInput {
  const { callback, error, upload, custom, profiles } = params;
  return { ctx, ticket, params: { callback, error, upload, custom, profiles } };
}
