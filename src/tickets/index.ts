export { intake, inputTypeOf, type RenderRequest, type InputType } from './intake.js';
export { statusView, type TicketStatusView } from './status-view.js';
export { waitForTicket } from './wait.js';
export { mainArtifact, openArtifact, artifactSize, artifactZip, findStoredFile, outputOfType } from './artifacts.js';
export { Worker } from './worker.js';
export { isTicketId, newTicketId } from './ids.js';
export { createNotifier, type Notifier } from './notifier.js';
export type { RenderQuery, TicketParams } from './params.js';
