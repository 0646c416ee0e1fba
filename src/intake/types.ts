import type { RenderQuery } from '../tickets/params.js';

/** A render request as intake sees it: HTTP has parsed it and authorized the caller. */
export interface RenderRequest {
  tenant: string;
  project: string;
  target: 'pdf' | 'pptx';
  query: RenderQuery;
  contentType: string;
  body: Buffer;
  /**
   * Called once the output type is known, before anything is stored (sync mode checks Accept):
   * the media type of a conversion, or undefined for the target's own document type.
   */
  checkOutput?: (convertMediaType: string | undefined) => void;
  /** Synchronous mode: the client waits for the outcome (see TicketParams.awaited). */
  awaited?: boolean;
}

/** What intake stored: the tickets to render, and the aggregate waiting for them (if any). */
export interface IntakeResult {
  tickets: string[];
  aggregate: string | null;
}
