import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type MigrationProvider } from 'kysely';
import pg from 'pg';
import type { Settings } from '../config/settings.js';
import { migrationsFor } from './migrations/index.js';
import { PressroomPostgresDialect } from './pg-dialect.js';
import { sendNamedStatements } from './pg-statements.js';
import { openSqliteFile, reclaimSqliteSpace } from './sqlite-file.js';
import { CheckpointThread } from './checkpoint-thread.js';
import { IdleCheckpoints } from './wal-checkpoints.js';
import type { Database } from './schema.js';

// bigint columns hold epoch milliseconds and sizes, all far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

/** What differs between the two engines, decided once. */
export interface Dialect {
  readonly kind: 'sqlite' | 'postgres';
  /** `FOR UPDATE SKIP LOCKED` is available (PostgreSQL). */
  readonly skipLocked: boolean;
}

/** An open database: the Kysely handle, its dialect flags and, for PostgreSQL, the pool. */
export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  readonly pgPool: pg.Pool | null;
  readonly pgConfig: pg.PoolConfig | null;
  /**
   * After deletions: makes the removed data leave the database files (SQLite: free pages
   * vacuumed, WAL checkpointed and truncated). False when a reader kept the WAL in use.
   */
  reclaimSpace(): Promise<boolean>;
  /**
   * SQLite: a number that moves whenever another connection (another process on the same file)
   * has committed since it was last read. PostgreSQL has none: processes announce their
   * changes through the notifier.
   */
  readonly othersCommitted: (() => number) | null;
  /**
   * The caller is about to wait (it has handed a render its job): SQLite moves the WAL into
   * the database now, beside that wait, at most every {@link IDLE_CHECKPOINT_MS}
   * (see IdleCheckpoints). PostgreSQL: nothing.
   */
  checkpointSoon(now: number): void;
  close(): Promise<void>;
}

/** Options of {@link openDb}. */
export interface OpenDbOptions {
  /** Told of a failed background checkpoint (the automatic one still runs). Default: ignored. */
  onCheckpointError?: (err: unknown) => void;
}

/**
 * The shortest time between two checkpoints asked for by {@link Db.checkpointSoon}. A ticket of
 * the bench page writes ~55 WAL pages, so synchronous requests one at a time (~10 ms each)
 * reach the automatic checkpoint's 1000 pages in ~180 ms: at 250 ms it came first, inside a
 * commit, and at 100 ms this one does, beside a render. 450 such requests, three alternated
 * pairs on 2 cores: requests slower than p50 + 4 ms 38–45 → 16–28, p95 16.2–16.6 → 13.1–14.3 ms;
 * async throughput and intake unchanged.
 */
const IDLE_CHECKPOINT_MS = 100;

/** Opens the database named by the settings (PostgreSQL URL or SQLite under dataDir). */
export function openDb(settings: Settings, opts: OpenDbOptions = {}): Db {
  if (settings.databaseUrl) {
    const config: pg.PoolConfig = {
      connectionString: settings.databaseUrl,
      max: 10,
      options: `-c search_path=${settings.databaseSchema}`,
    };
    const pool = new pg.Pool(config);
    if (settings.databaseNamedStatements) sendNamedStatements(pool);
    const kysely = new Kysely<Database>({ dialect: new PressroomPostgresDialect({ pool }) });
    return {
      kysely,
      dialect: { kind: 'postgres', skipLocked: true },
      pgPool: pool,
      pgConfig: config,
      // PostgreSQL's autovacuum reclaims dead rows; see docs/retention.md for what it does not.
      reclaimSpace: async () => true,
      othersCommitted: null,
      checkpointSoon: () => {},
      close: () => kysely.destroy(),
    };
  }
  const file = join(settings.dataDir, 'pressroom.db');
  restrictToOwner(settings.dataDir, file);
  const sqlite = openSqliteFile(file);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // SQLite's data_version: unchanged by this connection's own commits, moved by any other's.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  // On a thread of its own (checkpoint-thread.ts). SQLite's own automatic checkpoint (1000
  // pages) stays on the writer: for writes no render follows, and under heavy writes it may
  // come first, so no checkpoint is ever larger than before.
  const thread = new CheckpointThread(file);
  const checkpoints = new IdleCheckpoints(() => thread.checkpoint(), IDLE_CHECKPOINT_MS, opts.onCheckpointError ?? (() => {}));
  return {
    kysely,
    dialect: { kind: 'sqlite', skipLocked: false },
    pgPool: null,
    pgConfig: null,
    // Holding Kysely's one connection keeps the pragmas out of any transaction in flight.
    reclaimSpace: () => kysely.connection().execute(async () => reclaimSqliteSpace(sqlite)),
    othersCommitted: () => dataVersion.get() as number,
    checkpointSoon: (now) => void checkpoints.soon(now),
    close: async () => {
      await thread.close();
      await kysely.destroy();
    },
  };
}

/**
 * The database holds password hashes, the token-signing secret and customers' data: the data
 * folder is 0700 and the database 0600 (SQLite gives its -wal and -shm files the database's
 * mode). Applied at every start, so files an earlier version created 0644 are closed too.
 */
function restrictToOwner(dataDir: string, file: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/**
 * Kysely prepares every query anew; preparing costs more than running our small queries, so
 * statements are kept by SQL text (bounded; a statement is reusable once it has run).
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop !== 'prepare') {
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (source: string) => {
        let stmt = cache.get(source);
        if (!stmt) {
          stmt = prepare(source);
          if (cache.size >= 500) cache.delete(cache.keys().next().value!);
          cache.set(source, stmt);
        }
        return stmt;
      };
    },
  });
}

/** Applies pending migrations; safe to run from several processes at once on PostgreSQL. */
export async function migrate(db: Db, schema: string): Promise<string[]> {
  if (db.dialect.kind === 'postgres') {
    await db.pgPool!.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  }
  // Name the schema: otherwise Kysely looks for its bookkeeping tables in every schema and
  // can find another deployment's (or another test's) and skip creating its own.
  // Unordered: migrations are numbered by capability and may land in any order.
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(db.dialect.kind) };
  const migrator = new Migrator({ db: db.kysely, provider, allowUnorderedMigrations: true, ...(db.dialect.kind === 'postgres' ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The readiness check: one trivial round trip; rejects when the database cannot be reached (or is closed). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
