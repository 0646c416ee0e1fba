import { webhookConfig } from './shared.js';

/** callback/config.ion: connections (method, authentication, payload, headers) and redelivery rules. */
export const callbackConfig = webhookConfig();
