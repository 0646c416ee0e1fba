import { r } from '../schema.js';

const xslt = r.matching(/^\w+\.xslt$/, 'a file name like name.xslt (letters, digits, _)');

/** restapi/config.ion (and restapi/config-<profile>.ion): intake, fanout, aggregate, plus pressroom limits. */
export const restapiConfig = r.struct({
  uploadUrl: r.urls(),
  callbackUrl: r.urls(),
  errorUrl: r.urls(),
  /** Standard Webhooks signing secret of the project's webhooks (pressroom). */
  webhookSecret: r.secret(),
  documentTemplate: r.string(),
  transform: xslt,
  transformBefore: xslt,
  fanout: r.struct({ enabled: r.bool(), rootPath: r.string(), itemType: r.string(), itemAttribute: r.string() }),
  aggregate: r.struct({ enabled: r.bool(), timeoutInSeconds: r.int(1, 21600) }),
  keepInputForSeconds: r.int(60, 86400),
  inputBufferSize: r.int(65536, 4194304),
  outputType: r.oneOf('pdf'),
  convert: r.string(),
  quota: r.struct({ ticketsPerMonth: r.int(0), tenantTicketsPerMonth: r.int(0) }),
  maxParallelRenders: r.int(1, 10000),
});
