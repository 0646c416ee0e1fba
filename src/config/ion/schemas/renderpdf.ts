import { r } from '../schema.js';
import { keepUntil, keepWhen, redeliverOnError } from './shared.js';

export const pdfStandards = ['1.4', '1.5', '1.6', '1.7', '2.0', 'a-1b', 'a-1a', 'a-2b', 'a-2u', 'a-2a', 'a-3b', 'a-3u', 'a-3a', 'a-4', 'a-4f', 'a-4e', 'ua-1'] as const;

/** renderpdf/config.ion: template, retention of output and log, PDF standard, time limit, redelivery. */
export const renderpdfConfig = r.struct({
  documentTemplate: r.string(),
  keepOutput: keepWhen,
  keepOutputForSeconds: r.int(0),
  keepOutputUntil: keepUntil,
  keepLog: keepWhen,
  keepLogForSeconds: r.int(0),
  keepLogUntil: keepUntil,
  pdfStandard: r.oneOf(...pdfStandards),
  pdfTags: r.bool(),
  maxExecutionMillis: r.int(1),
  redeliverOnError,
});
