export { intake } from './intake.js';
export { waitForTicket } from './wait.js';
export { inputTypeOf, type InputType } from './request-checks.js';
export { resolveConvert, type ConvertParam } from './convert-param.js';
export type { RenderRequest, IntakeResult } from './types.js';
