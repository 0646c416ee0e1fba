import type { Context } from '../../context.js';
import { idempotencyKeys, retention, stepEvents } from '../../store/index.js';
import { attemptKeyPrefix, legacyAttemptFolder, ticketFolder } from '../blob-keys.js';

/** Options of one housekeeping run. */
export interface HousekeepingOptions {
  /** The time to judge expiry by. @defaultValue ctx.now() */
  now?: number;
  /** Rows per batch (one select, one conditional delete). @defaultValue 100 */
  batch?: number;
  /** Most batches per kind of work in one run; the rest waits for the next round. @defaultValue 50 */
  maxBatches?: number;
  /** Also sweep partial blob writes left by crashed processes (a walk of the whole blob store). @defaultValue false */
  temp?: boolean;
}

/** What one run removed. */
export interface HousekeepingResult {
  /** Stored files (artifact rows and their blobs). */
  files: number;
  /** Ticket inputs (inline or blob). */
  inputs: number;
  /** Ticket rows (with whatever was left under the ticket's blob folder). */
  tickets: number;
  /** Step attempts whose worker died or lost its lease, cleaned of the files they left. */
  deadAttempts: number;
  /** Idempotency-Keys of render requests past their 24 h. */
  idempotencyKeys: number;
  /** Stale partial blob writes. */
  temp: number;
}

// Folders of finished work see no more writes, so an emptied one can go (an attempt's folder,
// the folder of an input shared by fanout parts).
const prune = { pruneFolder: true };

// Processes whose last reclaim was kept from truncating the WAL: their next round tries again.
const unreclaimed = new WeakSet<Context>();

// A partial write older than this belongs to a process that died.
const TEMP_MAX_AGE_MS = 24 * 3600_000;

/**
 * Deletes what retention no longer keeps: expired or shipped files of complete tickets, files
 * and inputs of projects past their `expires` date, expired inputs, then complete ticket rows
 * with nothing left that finished more than `ticketRetentionSeconds` ago. Safe to run in
 * several processes at once (each row is removed by one of them) and idempotent.
 */
export async function runHousekeeping(ctx: Context, opts: HousekeepingOptions = {}): Promise<HousekeepingResult> {
  const now = opts.now ?? ctx.now();
  const batch = opts.batch ?? 100;
  const maxBatches = opts.maxBatches ?? 50;
  const db = ctx.db.kysely;
  const result: HousekeepingResult = { files: 0, inputs: 0, tickets: 0, deadAttempts: 0, idempotencyKeys: 0, temp: 0 };

  /** Runs `step` until it finds less than a full batch, or the budget is spent. */
  const drain = async (step: () => Promise<{ found: number; removed: number }>): Promise<number> => {
    let removed = 0;
    for (let i = 0; i < maxBatches; i++) {
      const r = await step();
      removed += r.removed;
      if (r.found < batch) break;
    }
    return removed;
  };

  const files = (select: () => Promise<retention.StoredFile[]>) => async () => {
    const candidates = await select();
    const mine = await retention.deleteFiles(db, candidates);
    // A file kept in its row went with the row.
    await Promise.all(mine.filter((f) => Number(f.in_row) === 0).map((f) => ctx.blobs.delete(f.blob_key, prune)));
    return { found: candidates.length, removed: mine.length };
  };
  result.files += await drain(files(() => retention.expiredFiles(db, now, batch)));
  result.files += await drain(files(() => retention.shippedFiles(db, batch)));
  result.files += await drain(files(() => retention.filesOfExpiredProjects(db, now, batch)));

  const inputs = (select: () => Promise<retention.StoredInput[]>) => async () => {
    const candidates = await select();
    const mine = new Set(await retention.dropInputs(db, candidates.map((c) => c.id), now));
    await Promise.all(candidates.filter((c) => mine.has(c.id) && c.input_key).map((c) => ctx.blobs.delete(c.input_key!, prune)));
    return { found: candidates.length, removed: mine.size };
  };
  result.inputs += await drain(inputs(() => retention.expiredInputs(db, now, batch)));
  result.inputs += await drain(inputs(() => retention.inputsOfExpiredProjects(db, now, batch)));

  // A dead attempt's files are what it wrote before it died (a part of a file among them) and,
  // if it died between its commit and its timeline entry, files its ticket still names.
  result.deadAttempts += await drain(async () => {
    const dead = await stepEvents.deadAttempts(db, batch);
    let removed = 0;
    for (const attempt of dead) {
      const owner = { tenant: attempt.tenant, project: attempt.project, id: attempt.ticket, attempt: attempt.attempt };
      const prefix = attemptKeyPrefix(owner);
      const legacy = legacyAttemptFolder(owner);
      const kept = await retention.artifactKeysUnder(db, attempt.ticket, ticketFolder(owner));
      const written = (await ctx.blobs.list(ticketFolder(owner))).filter((k) => k.startsWith(prefix) || k.startsWith(legacy));
      await Promise.all(written.filter((k) => !kept.has(k)).map((k) => ctx.blobs.delete(k)));
      // An attempt of an earlier version wrote into a folder of its own, temp files included.
      if (![...kept].some((k) => k.startsWith(legacy))) await ctx.blobs.deletePrefix(legacy);
      if (await stepEvents.markRedelivered(db, attempt.ticket, attempt.attempt)) removed++;
    }
    return { found: dead.length, removed };
  });

  const before = now - ctx.settings.ticketRetentionSeconds * 1000;
  result.tickets += await drain(async () => {
    const candidates = await retention.finishedTickets(db, before, now, batch);
    const mine = await retention.deleteTickets(db, candidates, before);
    await Promise.all(
      mine.map(async (t) => {
        if (t.input_key) await ctx.blobs.delete(t.input_key, prune);
        // Every blob of a ticket lives under this folder; this also takes what a lost attempt left.
        await ctx.blobs.deletePrefix(ticketFolder(t));
      }),
    );
    return { found: candidates.length, removed: mine.length };
  });

  // Keys past their window answer nothing any more (a request with one starts afresh).
  const keysBefore = now - idempotencyKeys.WINDOW_MS;
  result.idempotencyKeys += await drain(async () => {
    const keys = await idempotencyKeys.expired(db, keysBefore, batch);
    return { found: keys.length, removed: await idempotencyKeys.deleteExpired(db, keys, keysBefore) };
  });

  // Deleted rows linger in free pages and the WAL until reclaimed; customers' data must not.
  if (result.files + result.inputs + result.tickets > 0 || unreclaimed.has(ctx)) {
    if (await ctx.db.reclaimSpace()) unreclaimed.delete(ctx);
    else {
      unreclaimed.add(ctx);
      ctx.logger.warn('housekeeping could not truncate the SQLite WAL (another process was reading); the next round retries');
    }
  }

  // File times come from the operating system's clock, not from the injectable one.
  if (opts.temp) result.temp = await ctx.blobs.removeStaleTemp(Date.now() - TEMP_MAX_AGE_MS);
  return result;
}
