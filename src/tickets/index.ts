export { statusView, TicketStatusViewSchema, type TicketStatusView } from './status-view.js';
export { mainArtifact, openArtifact, readArtifact, artifactSize, artifactZip, findStoredFile, outputOfType } from './artifacts.js';
export { Worker } from './worker.js';
export { isTicketId, newTicketId } from './ids.js';
export { RenderQuerySchema, type RenderQuery, type TicketParams } from './params.js';
export { ticketHistory, HISTORY_DEFAULT_LIMIT, type HistoryQuery, type HistoryPage } from './history.js';
export { ticketTimeline, type TimelineEntry } from './timeline.js';
export { storedInput, storedInputType } from './stored-input.js';
