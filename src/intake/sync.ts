import type { Readable } from 'node:stream';
import type { Principal } from '../auth/index.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { tickets, type ArtifactRow } from '../store/index.js';
import { mainArtifact, openArtifact, readArtifact } from '../tickets/index.js';
import { idempotent } from './idempotency.js';
import { intake } from './intake.js';
import type { IntakeResult, RenderRequest } from './types.js';
import { waitForTicket } from './wait.js';
import { targets } from '../steps/targets.js';

/** The document type each target renders. */
export const outputTypes = { pdf: targets.pdf.mediaType, pptx: targets.pptx.mediaType } as const;
/** Synchronous answers up to this size are read whole, larger ones streamed. */
const WHOLE_ANSWER_BYTES = 1024 * 1024;
/** What renderpdf answers in synchronous mode with `convert`: one image, or a ZIP for a pageset. */
export const convertTypes = ['image/png', 'image/jpeg', 'application/zip'];

/**
 * The client's Accept header and HTTP's negotiation over it, which picks the offered type the
 * header prefers and throws 406 when it names none. Intake decides what to offer; HTTP parses.
 */
export interface AcceptHeader {
  header: string | undefined;
  negotiate(offered: readonly string[]): string;
}

/** How a render request is answered. */
export type RenderAnswer =
  /** Async mode, or sync mode without a single document (fanout parts and no aggregate): 202. */
  | { kind: 'queued'; stored: IntakeResult }
  /** Sync mode, not finished within timeToWait; the tickets go on: 408. */
  | { kind: 'timed-out'; stored: IntakeResult }
  /** Sync mode: the finished document. Call delivered() once the client holds it. */
  | { kind: 'document'; ticket: string; artifact: ArtifactRow; body: Buffer | Readable; delivered: () => void };

/**
 * Runs a render request in the mode the client asked for: synchronous (the document itself)
 * when it sends timeToWait and an Accept that prefers a document to JSON, else asynchronous
 * (the ticket ids). Sync mode checks Accept against the actual output (a conversion answers
 * with an image or a ZIP) before anything is stored, so a 406 leaves no ticket behind.
 *
 * With an Idempotency-Key, a request the key has seen within 24 h stores nothing and is answered
 * from the first one's tickets as the first was (see idempotency.ts).
 */
export async function submitRender(
  ctx: Context,
  principal: Principal,
  req: Omit<RenderRequest, 'checkOutput'>,
  accept: AcceptHeader,
  idempotency?: { key: string; contentType: string },
): Promise<RenderAnswer> {
  const outputType = outputTypes[req.target];
  const offered = req.target === 'pdf' ? [outputType, ...convertTypes] : [outputType];
  const timeToWait = syncWait(req.query.timeToWait, offered, accept);
  const checkOutput = timeToWait !== undefined ? (converted: string | undefined) => requireAccepted(accept, converted ?? outputType, converted !== undefined) : undefined;
  const run = () => intake(ctx, principal, { ...req, ...(checkOutput ? { checkOutput, awaited: true } : {}) });
  const stored = idempotency ? (await idempotent(ctx, { ...req, ...idempotency }, run)).stored : await run();
  // Synchronous mode returns one document: the aggregate's, or the only ticket's. Several
  // fanout parts without an aggregate have no single result, so they are answered as async.
  const single = stored.aggregate ?? (stored.tickets.length === 1 ? stored.tickets[0]! : null);
  if (timeToWait === undefined || !single) return { kind: 'queued', stored };
  return awaitDocument(ctx, stored, single, timeToWait);
}

/** timeToWait when the request is synchronous, undefined when it is not; 406 for an Accept that fits neither mode. */
function syncWait(timeToWait: number | undefined, offered: string[], accept: AcceptHeader): number | undefined {
  if (timeToWait !== undefined && accept.negotiate([...offered, 'application/json']) !== 'application/json') return timeToWait;
  try {
    accept.negotiate(['application/json']);
  } catch (err) {
    const asked = offered.find((t) => accept.header?.includes(t));
    if (asked) throw new AppError('not_acceptable', `Accept ${asked} asks for synchronous mode, which needs timeToWait (6000-1200000 msec)`);
    throw err;
  }
  return undefined;
}

/** Synchronous mode: 406 unless Accept allows the type this request will produce. */
function requireAccepted(accept: AcceptHeader, type: string, converted: boolean): void {
  try {
    accept.negotiate([type]);
  } catch {
    throw new AppError('not_acceptable', `synchronous mode answers this request with ${type}${converted ? ' (convert)' : ''}; Accept "${accept.header ?? ''}" does not allow it`);
  }
}

/** Waits for the ticket; a failed one is the request's error (with the ticket id), a finished one its document. */
async function awaitDocument(ctx: Context, stored: IntakeResult, id: string, timeToWait: number): Promise<RenderAnswer> {
  const end = await waitForTicket(ctx, ctx.notifier, id, timeToWait);
  if (!end) return { kind: 'timed-out', stored };
  const done = end.ticket;
  if (done.status?.endsWith('.failed')) {
    throw new AppError('render_failed', `ticket ${done.id} failed (${done.status}, errorCode ${done.error_code}): ${done.error_message ?? 'unknown error'}`, {
      headers: { 'x-ticket-id': done.id },
    });
  }
  // The output this process's worker just stored is still in memory; else it is read back.
  const artifact = end.output?.artifact ?? (await mainArtifact(ctx, done));
  // Read back, a document of ordinary size is answered from memory in one write, with its
  // length, and a large one streams; one still in hand is answered whole.
  const body = end.output?.body ?? (artifact.size <= WHOLE_ANSWER_BYTES ? await readArtifact(ctx, artifact) : await openArtifact(ctx, artifact));
  // The client holding the document is a delivery, like a storage download.
  const delivered = () => void tickets.markShipped(ctx.db.kysely, done.id, ctx.now()).catch(() => {});
  return { kind: 'document', ticket: done.id, artifact, body, delivered };
}
