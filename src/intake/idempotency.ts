import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { idempotencyKeys } from '../store/index.js';
import type { RenderQuery } from '../tickets/params.js';
import type { IntakeResult } from './types.js';

/** A key pending longer than this belongs to a process that died during intake: a request may take it over. */
const ABANDONED_MS = 2 * 60_000;
/** Attempts to claim a key that keeps vanishing under us (expired, released, taken over). */
const MAX_CLAIMS = 5;

const HEADER = 'Idempotency-Key';

/** An Idempotency-Key of a render request, and what makes the request the same one. */
export interface IdempotentRequest {
  tenant: string;
  project: string;
  key: string;
  target: string;
  /** The Content-Type header as sent. */
  contentType: string;
  query: RenderQuery;
  body: Buffer;
}

/** What a request with a key gets: a new intake, or the stored result of its first request (a replay). */
export interface KeyedResult {
  stored: IntakeResult;
  replay: boolean;
}

/** sha256 over target, Content-Type, the query parameters sorted by name, and the body. */
export function requestHash(req: Pick<IdempotentRequest, 'target' | 'contentType' | 'query' | 'body'>): string {
  const query = Object.entries(req.query as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // The JSON line holds no raw newline, so it cannot run into the body.
  return createHash('sha256')
    .update(JSON.stringify([req.target, req.contentType.trim(), query]))
    .update('\n')
    .update(req.body)
    .digest('hex');
}

/**
 * Runs intake once per key (Stripe's semantics): the first request with a key claims it
 * (a pending row) and runs `run`; later requests with the same request get its stored result
 * without a new intake, a different request 422, and while the first is still in intake 409.
 * A refused request releases its key so a corrected one may use it. The first request's row
 * is replaced when it is older than 24 h, or pending for over 2 minutes (its process died).
 */
export async function idempotent(ctx: Context, req: IdempotentRequest, run: () => Promise<IntakeResult>): Promise<KeyedResult> {
  const db = ctx.db.kysely;
  const id = { tenant: req.tenant, project: req.project, key: req.key };
  const hash = requestHash(req);
  for (let i = 0; i < MAX_CLAIMS; i++) {
    const now = ctx.now();
    if (await idempotencyKeys.claim(db, id, hash, now)) return { stored: await runClaimed(ctx, id, now, run), replay: false };
    const row = await idempotencyKeys.find(db, id);
    if (!row) continue;
    const created = Number(row.created);
    if (created <= now - idempotencyKeys.WINDOW_MS) {
      await idempotencyKeys.remove(db, id, created);
      continue;
    }
    if (row.request_hash !== hash) {
      const message = `${HEADER} ${req.key} was used with a different request (body, Content-Type or query parameters) within the last 24 h`;
      throw new AppError('idempotency_mismatch', message, { details: [{ field: HEADER, message }] });
    }
    if (row.state === 'done' && row.result !== null) return { stored: JSON.parse(row.result) as IntakeResult, replay: true };
    if (created <= now - ABANDONED_MS) {
      ctx.logger.warn({ tenant: req.tenant, project: req.project }, 'taking over an Idempotency-Key whose request never finished intake');
      await idempotencyKeys.remove(db, id, created);
      continue;
    }
    break;
  }
  throw new AppError('idempotency_in_progress', `a request with this ${HEADER} is in progress`, { details: [{ field: HEADER, message: 'in progress' }] });
}

/** Intake for a claimed key: its result recorded, or on failure the key released. */
async function runClaimed(ctx: Context, id: idempotencyKeys.KeyId, created: number, run: () => Promise<IntakeResult>): Promise<IntakeResult> {
  let stored: IntakeResult;
  try {
    stored = await run();
  } catch (err) {
    await idempotencyKeys.remove(ctx.db.kysely, id, created).catch((e: unknown) => ctx.logger.warn({ err: e }, 'could not release an Idempotency-Key; it frees itself after 2 minutes'));
    throw err;
  }
  // The tickets are stored: failing to record them only costs a possible duplicate after the take-over time.
  const recorded = await idempotencyKeys.complete(ctx.db.kysely, id, created, JSON.stringify(stored)).catch((e: unknown) => {
    ctx.logger.warn({ err: e }, 'could not record the result of an Idempotency-Key');
    return true;
  });
  if (!recorded) ctx.logger.warn({ tenant: id.tenant, project: id.project }, 'an Idempotency-Key was taken over while its request ran intake');
  return stored;
}
