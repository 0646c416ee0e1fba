import pino, { type Logger } from 'pino';
import { TokenService } from './auth/index.js';
import { openBlobStore, type BlobStore } from './blobs/index.js';
import type { Settings } from './config/settings.js';
import { countBlobErrors, ServiceMetrics } from './metrics/index.js';
import { createNotifier, GroupedTicketInserts, migrate, openDb, ReadMostlyCache, RecentTicketCounts, type ArtifactRow, type Db, type Notifier, type TicketRow } from './store/index.js';

/** Everything a process shares: settings, store, blobs, token service, logger. Built once at start. */
export interface Context {
  readonly settings: Settings;
  readonly db: Db;
  readonly blobs: BlobStore;
  readonly tokens: TokenService;
  readonly logger: Logger;
  /** Ticket events across processes (new tickets, completions). */
  readonly notifier: Notifier;
  /** Project rows and repository index answers every ticket reads, remembered until one of them changes. */
  readonly readMostly: ReadMostlyCache;
  /** Each project's tickets of the last minute (fair priority), read from the store about once a second. */
  readonly recentTickets: RecentTicketCounts;
  /** New tickets of requests ready at the same moment, stored in one transaction (SQLite). */
  readonly ticketInserts: GroupedTicketInserts;
  /** Sandboxed XSLT processes (started on first use): intake runs transformBefore, workers transform. */
  readonly transformer: XsltEngine;
  /** This process's Prometheus series (queue, steps, webhooks, engine slots, blob errors). */
  readonly metrics: ServiceMetrics;
  /** This process's worker while it runs (role all or worker), for tickets intake hands it directly. */
  readonly localWorker: { current: LocalWorker | null };
  /** Wall clock in epoch ms; tests inject their own to move time without sleeping. */
  now(): number;
  close(): Promise<void>;
}

/**
 * A worker that can take a ticket straight from intake: stored already leased to it, with no
 * claim (a write transaction and a wake-up) in between. Only offered while the worker has a
 * free slot and knows of no due ticket, so nothing waiting is overtaken.
 */
export interface LocalWorker {
  /** A lease for one ticket about to be stored, or null when the worker is busy, stopping or may have due tickets. */
  reserve(): TicketLease | null;
  /** The body intake has just stored as an input blob under `key`: the step that reads it may take it from memory. */
  keepInput(key: string, body: Buffer): void;
  /**
   * Hands `ended` the end of ticket `id` if this worker commits it, until the returned function
   * is called: a synchronous request of this process answers from it instead of reading back
   * what the commit just wrote.
   */
  watchEnd(id: string, ended: (end: CommittedEnd) => void): () => void;
}

/** A ticket's end as this process's worker committed it. */
export interface CommittedEnd {
  /** The ticket's row as the commit left it. */
  readonly ticket: TicketRow;
  /** Its main output's row and bytes, when the step that ended it wrote the output; else null (read it from the store). */
  readonly output: { readonly artifact: ArtifactRow; readonly body: Buffer } | null;
}

/** A reserved slot of the local worker. start or cancel must follow; whichever comes second does nothing. */
export interface TicketLease {
  readonly owner: string;
  readonly until: number;
  /**
   * Runs the step of the ticket being stored with this lease and attempt 1, from the input
   * intake holds, while `stored` writes its input blob and commits its row. The step's outcome
   * is committed only once `stored` has resolved, and dropped when it rejects.
   */
  start(row: TicketRow, handed: HandedTicket): void;
  /** The ticket will not be stored: frees the slot (unless it started). */
  cancel(): void;
}

/** What intake hands the local worker with a ticket it is still storing. */
export interface HandedTicket {
  /** Settles when the ticket's input and row are stored (resolves) or will never be (rejects). */
  readonly stored: Promise<void>;
  /** The request body as received: what the stored input will hold. */
  readonly input: Buffer;
}

/**
 * The XSLT engine the Context carries: engines/xslt's Transformer, which the composition root
 * (server.ts) builds. The Context sits below the engines, so it declares their shape instead of
 * importing them: the whole of it, because the steps hand ctx.transformer on as a Transformer.
 * The compiler checks the two agree where server.ts hands the engine in and where the steps take it.
 */
export interface XsltEngine {
  transform(req: XsltRequest): Promise<Buffer>;
  stats(): Record<'compiles' | 'cacheHits' | 'cachedStylesheets' | 'processesStarted' | 'liveProcesses' | 'queued', number>;
  poolStats(): EnginePoolStats;
  close(): Promise<void>;
}

/** One transform: a tenant's stylesheet applied to XML or JSON input (engines/xslt's TransformRequest). */
export interface XsltRequest {
  stylesheet: Buffer;
  /** Shown in error messages, e.g. `orders.xslt`. */
  stylesheetName: string;
  input: Buffer;
  inputType: 'xml' | 'json';
  params?: Record<string, string>;
  timeoutMs?: number;
}

/** Slots of an engine's process pool, for metrics (engines/pool's PoolStats). */
export interface EnginePoolStats {
  size: number;
  starting: number;
  idle: number;
  busy: number;
  queued: number;
  started: number;
  replaced: Record<'timeout' | 'memory' | 'crash' | 'recycled', number>;
}

/** Paths and headers whose values must never reach a log line. */
export const logRedactions = [
  'req.headers.authorization',
  'headers.authorization',
  'password',
  'access_token',
  'token',
  '*.password',
  '*.clientSecret',
  '*.access_token',
];

/** What the composition root hands the Context: the engines it carries, and optionally a logger and clock. */
export interface ContextParts {
  /** Builds the XSLT engine once the store is open; the Context closes it. */
  transformer: (logger: Logger) => XsltEngine;
  logger?: Logger;
  now?: () => number;
}

/** Opens the store (migrating it), the blob store, the token key and the notifier; builds the engines it is handed. */
export async function openContext(settings: Settings, opts: ContextParts): Promise<Context> {
  const logger = opts.logger ?? pino({ level: settings.logLevel, redact: { paths: logRedactions, censor: '[redacted]' } });
  const db = openDb(settings, { onCheckpointError: (err) => logger.warn({ err }, "WAL checkpoint failed; SQLite's automatic checkpoint remains") });
  try {
    await migrate(db, settings.databaseSchema);
  } catch (err) {
    await db.close();
    throw err;
  }
  const metrics = new ServiceMetrics();
  const blobs = countBlobErrors(await openBlobStore(settings), metrics);
  const now = opts.now ?? Date.now;
  const tokens = await TokenService.create(settings, db, now);
  const notifier = await createNotifier(db, logger, settings.databaseSchema);
  const transformer = opts.transformer(logger);
  const readMostly = new ReadMostlyCache(db.kysely, notifier, now, db.othersCommitted);
  return {
    settings,
    db,
    blobs,
    tokens,
    logger,
    notifier,
    readMostly,
    recentTickets: new RecentTicketCounts(db.kysely, now),
    ticketInserts: new GroupedTicketInserts(db.kysely, db.dialect),
    transformer,
    metrics,
    localWorker: { current: null },
    now,
    async close() {
      await transformer.close();
      readMostly.close();
      await notifier.close();
      await db.close();
      blobs.close();
    },
  };
}
