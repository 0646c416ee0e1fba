export { intake } from './intake.js';
export { submitRender, outputTypes, convertTypes, type AcceptHeader, type RenderAnswer } from './sync.js';
export { waitForTicket } from './wait.js';
export { inputTypeOf, type InputType } from './request-checks.js';
export { resolveConvert, type ConvertParam } from './convert-param.js';
export type { RenderRequest, IntakeResult } from './types.js';
