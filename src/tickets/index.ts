export { intake, inputTypeOf, type RenderRequest, type InputType } from './intake.js';
export { statusView, TicketStatusViewSchema, type TicketStatusView } from './status-view.js';
export { waitForTicket } from './wait.js';
export { mainArtifact, openArtifact, artifactSize, artifactZip, findStoredFile, outputOfType } from './artifacts.js';
export { Worker } from './worker.js';
export { isTicketId, newTicketId } from './ids.js';
export { createNotifier, type Notifier } from './notifier.js';
export { RenderQuerySchema, type RenderQuery, type TicketParams } from './params.js';
