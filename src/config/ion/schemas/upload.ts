import { r } from '../schema.js';
import { webhookConfig } from './shared.js';

/** upload/config.ion: connections with the upload-only fields, and redelivery rules. */
export const uploadConfig = webhookConfig({
  'use-chunked-transfer': r.bool(),
  exportParams: r.list(r.struct({ name: r.string(), source: r.oneOf('headers', 'jsonBody', 'xmlBody'), path: r.string() }, { required: ['name', 'path'] })),
  uploadType: r.string(),
});
