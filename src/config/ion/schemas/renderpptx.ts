import { r } from '../schema.js';
import { keepUntil, keepWhen, redeliverOnError } from './shared.js';

/** renderpptx/config.ion: the contract's table, including the layout-mapping options. */
export const renderpptxConfig = r.struct({
  documentTemplate: r.string(),
  maxExecutionMillis: r.int(1),
  keepOutput: keepWhen,
  keepOutputForSeconds: r.int(0),
  keepOutputUntil: keepUntil,
  pptxLog: r.oneOf('on', 'off', 'enableLogOnError'),
  keepLog: keepWhen,
  keepLogForSeconds: r.int(0),
  keepLogUntil: keepUntil,
  redeliverOnError,
  allowMultiplePlaceholderPerName: r.bool(),
  allowMultiplePlaceholderPerType: r.bool(),
  allowMultipleShapesPerName: r.bool(),
  insertNewSlidesAfter: r.int(0, 10000),
  keepExistingSlides: r.bool(),
  mapPlaceholdersByName: r.bool(),
  mapPlaceholdersByType: r.bool(),
  mapShapesByName: r.bool(),
  preferredView: r.string(),
});
