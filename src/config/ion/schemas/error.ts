import { webhookConfig } from './shared.js';

/** error/config.ion: like callback; a payload may use `${errorMessage}`. */
export const errorConfig = webhookConfig();
