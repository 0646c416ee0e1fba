export { deliver, type DeliveryInput, type DeliveryOutcome } from './deliver.js';
export type { DeliveryParams } from './event.js';
export { webhookErrorCodes } from './outcome.js';
export { webhookId, signatureHeaders, signingKey } from './signature.js';
export { matchConnection, type Connection, type WebhookStep } from './connections.js';
export { userAgents } from './requests.js';
