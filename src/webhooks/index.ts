export { deliver } from './deliver.js';
export { webhookErrorCodes } from './outcome.js';
export { webhookId, signatureHeaders, signingKey } from './signature.js';
export { matchConnection, type Connection, type WebhookStep } from './connections.js';
export { userAgents } from './requests.js';
