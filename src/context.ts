import pino, { type Logger } from 'pino';
import { TokenService } from './auth/index.js';
import { openBlobStore, type BlobStore } from './blobs/index.js';
import type { Settings } from './config/settings.js';
import { migrate, openDb, type Db } from './store/index.js';
import { Transformer } from './engines/xslt/index.js';
import { createNotifier, type Notifier } from './tickets/notifier.js';

/** Everything a process shares: settings, store, blobs, token service, logger. Built once at start. */
export interface Context {
  readonly settings: Settings;
  readonly db: Db;
  readonly blobs: BlobStore;
  readonly tokens: TokenService;
  readonly logger: Logger;
  /** Ticket events across processes (new tickets, completions). */
  readonly notifier: Notifier;
  /** Sandboxed XSLT processes (started on first use): intake runs transformBefore, workers transform. */
  readonly transformer: Transformer;
  /** Wall clock in epoch ms; tests inject their own to move time without sleeping. */
  now(): number;
  close(): Promise<void>;
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

/** Opens the store (migrating it), the blob store and the token key. */
export async function createContext(settings: Settings, opts: { logger?: Logger; now?: () => number } = {}): Promise<Context> {
  const logger = opts.logger ?? pino({ level: settings.logLevel, redact: { paths: logRedactions, censor: '[redacted]' } });
  const db = openDb(settings);
  try {
    await migrate(db, settings.databaseSchema);
  } catch (err) {
    await db.close();
    throw err;
  }
  const blobs = await openBlobStore(settings);
  const now = opts.now ?? Date.now;
  const tokens = await TokenService.create(settings, db, now);
  const notifier = await createNotifier(db, logger);
  const transformer = new Transformer({
    processes: Math.max(1, Math.min(2, settings.renderThreads)),
    timeoutMs: settings.renderTimeoutMs,
    maxMemoryMb: settings.renderMaxMemoryMb,
    memoryCeilingMb: settings.renderMaxMemoryMb,
    logger,
  });
  return {
    settings,
    db,
    blobs,
    tokens,
    logger,
    notifier,
    transformer,
    now,
    async close() {
      await transformer.close();
      await notifier.close();
      await db.close();
      blobs.close();
    },
  };
}
