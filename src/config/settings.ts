import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseBlobUrl } from '../blobs/blob-url.js';
import { defaultMemoryCeilingMb, machineMemoryBytes } from './memory-ceiling.js';

/**
 * Every service setting, read once from the environment, validated with all
 * problems reported together, then frozen. Nothing else reads `process.env`.
 * docs/configuration.md lists the same table; a test keeps the two in step.
 */
export interface Settings {
  /** Interface to listen on. @defaultValue 127.0.0.1 */
  readonly host: string;
  /** TCP port; 0 picks a free one. @defaultValue 8080 */
  readonly port: number;
  /** Port of the /metrics and /healthz listener of a worker process (role worker opens no other port); null: none. */
  readonly metricsPort: number | null;
  /** Folder for the SQLite file, blobs and the initial admin password. @defaultValue ./data */
  readonly dataDir: string;
  /** `postgres://…` selects PostgreSQL; empty means SQLite under dataDir. */
  readonly databaseUrl: string | null;
  /** PostgreSQL schema to use (tests give each run its own). @defaultValue public */
  readonly databaseSchema: string;
  /** Send the every-ticket statements to PostgreSQL as named (server-side) prepared statements. @defaultValue true */
  readonly databaseNamedStatements: boolean;
  /** Blob store location: empty means files under dataDir/blobs; `file:///path` another folder; `s3://bucket/prefix` a bucket. */
  readonly blobUrl: string | null;
  /** Endpoint of an S3-compatible server (MinIO, Ceph RGW, …); empty means AWS S3. */
  readonly s3Endpoint: string | null;
  /** Region the S3 requests are signed for. @defaultValue us-east-1 */
  readonly s3Region: string;
  /** Path-style bucket addressing (`endpoint/bucket/key`) instead of `bucket.endpoint/key`. @defaultValue false */
  readonly s3ForcePathStyle: boolean;
  /** Which roles this process runs. @defaultValue all */
  readonly role: 'all' | 'api' | 'worker';
  /** Password for the bootstrap operator `admin`; random when unset. */
  readonly adminPassword: string | null;
  /** HMAC secret for JWTs; generated once and kept in the store when unset. */
  readonly jwtSecret: string | null;
  /** AES-256 key (base64 of 32 bytes) for sealed config.ion values; generated once and kept in the store when unset. */
  readonly sealKey: string | null;
  /** Token lifetime in seconds. @defaultValue 3600 */
  readonly tokenTtlSeconds: number;
  /** How long one process trusts its last look at a token's user, tenant and project (revocation delay). @defaultValue 5000 */
  readonly tokenRecheckMs: number;
  /** Failed token requests for one user name within the window before it is refused (429). @defaultValue 20 */
  readonly authUserFailures: number;
  /** Failed token requests from one client address within the window before it is refused (429). @defaultValue 100 */
  readonly authAddressFailures: number;
  /** Window of those two limits, in seconds. @defaultValue 60 */
  readonly authFailureWindowSeconds: number;
  /** `iss` claim of issued tokens. @defaultValue pressroom */
  readonly jwtIssuer: string;
  /** `aud` claim of issued tokens. @defaultValue pressroom */
  readonly jwtAudience: string;
  /** Largest request body in bytes. @defaultValue 104857600 (100 MiB) */
  readonly bodyLimit: number;
  /** pino log level. @defaultValue info */
  readonly logLevel: string;
  /** Service-wide profiles, e.g. `trace`. */
  readonly profiles: readonly string[];
  /** Render processes per worker. @defaultValue number of cores */
  readonly renderThreads: number;
  /** A render process past this resident size (MiB) is replaced after its job. @defaultValue 512 */
  readonly renderMaxRssMb: number;
  /** Memory ceiling (MiB) of one job in a render, convert or transform process; past it the process is killed and the ticket fails with 507. @defaultValue half the memory ÷ render processes, at least 1024 */
  readonly renderMaxMemoryMb: number;
  /** Longest a single render may run before it is stopped. @defaultValue 600000 */
  readonly renderTimeoutMs: number;
  /** Longest a Studio preview may compile when its project sets no maxExecutionMillis. @defaultValue 60000 */
  readonly previewTimeoutMs: number;
  /** Tickets one worker process runs at once. @defaultValue 2 × renderThreads */
  readonly workerConcurrency: number;
  /** How long a claimed step may run without renewing its lease. @defaultValue 30000 */
  readonly leaseMs: number;
  /** How often an idle worker looks for due tickets. @defaultValue 500 */
  readonly pollMs: number;
  /** On SIGTERM, how long running steps may finish before their tickets are released. @defaultValue 10000 */
  readonly shutdownGraceMs: number;
  /** Addresses, CIDRs or host names outgoing requests may reach although private. */
  readonly allowPrivateAddresses: readonly string[];
  /** A step's output, log or content file up to this many bytes is kept in its database row instead of the blob store; 0: none. @defaultValue 131072 (16384 on PostgreSQL with a file blob store) */
  readonly inlineFileMaxBytes: number;
  /** Largest ZIP accepted by repository tree upload or render intake, uncompressed. @defaultValue 268435456 */
  readonly zipMaxBytes: number;
  /** Most entries in such a ZIP. @defaultValue 10000 */
  readonly zipMaxEntries: number;
  /** Highest compression ratio of a ZIP entry and of a whole ZIP. @defaultValue 200 */
  readonly zipMaxRatio: number;
  /** ZIP uploads one API process unpacks at once; more wait (503 after 10 s). @defaultValue 2 */
  readonly zipConcurrency: number;
  /** Largest media asset (image URL in the data) in bytes. @defaultValue 20971520 (20 MiB) */
  readonly assetMaxBytes: number;
  /** Longest one media asset download may take, connecting included. @defaultValue 15000 */
  readonly assetTimeoutMs: number;
  /** Most media asset URLs downloaded for one job; 0 turns downloads off. @defaultValue 50 */
  readonly assetMaxCount: number;
  /** Largest total size of the media asset cache under `<data>/asset-cache`; 0 turns it off. @defaultValue 536870912 */
  readonly assetCacheBytes: number;
  /** Longest a media asset is kept in the cache, in seconds. @defaultValue 86400 */
  readonly assetCacheTtlSeconds: number;
  /** How often each process offers to run housekeeping (retention); 0 turns it off here. @defaultValue 60000 */
  readonly housekeepingMs: number;
  /** How long a complete ticket's status outlives its last stored file. @defaultValue 604800 */
  readonly ticketRetentionSeconds: number;
}

interface Definition<K extends keyof Settings> {
  env: string;
  doc: string;
  parse: (raw: string | undefined, env: NodeJS.ProcessEnv) => Settings[K];
}

type Definitions = { [K in keyof Settings]: Definition<K> };

class SettingError extends Error {}

function int(name: string, fallback: number, min: number, max: number) {
  return (raw: string | undefined): number => {
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new SettingError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
}

function bool(name: string, fallback: boolean) {
  return (raw: string | undefined): boolean => {
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    throw new SettingError(`${name} must be true or false, got "${raw}"`);
  };
}

/** The one password policy: users, operators and PRESSROOM_ADMIN_PASSWORD alike. */
export const MIN_PASSWORD_LENGTH = 12;

function str(fallback: string) {
  return (raw: string | undefined): string => (raw === undefined || raw === '' ? fallback : raw);
}

function optional(raw: string | undefined): string | null {
  return raw === undefined || raw === '' ? null : raw;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

const cores = availableParallelism();
/** PRESSROOM_RENDER_THREADS, which the memory ceiling and worker concurrency defaults also read. */
const renderThreads = int('PRESSROOM_RENDER_THREADS', cores, 1, 256);

export const definitions: Definitions = {
  host: { env: 'PRESSROOM_HOST', doc: 'Interface to listen on.', parse: str('127.0.0.1') },
  port: { env: 'PRESSROOM_PORT', doc: 'TCP port (0 picks a free one).', parse: int('PRESSROOM_PORT', 8080, 0, 65535) },
  metricsPort: {
    env: 'PRESSROOM_METRICS_PORT',
    doc: 'Processes of role `worker` only: a port (on PRESSROOM_HOST) serving `/metrics` and `/healthz`, so their step, webhook, engine and blob series can be scraped; unset: no port. API processes serve `/metrics` on PRESSROOM_PORT.',
    parse: (raw) => (raw === undefined || raw === '' ? null : int('PRESSROOM_METRICS_PORT', 0, 0, 65535)(raw)),
  },
  dataDir: {
    env: 'PRESSROOM_DATA',
    doc: 'Folder for the SQLite database, file blobs and the initial admin password.',
    parse: (raw) => resolve(raw || './data'),
  },
  databaseUrl: {
    env: 'PRESSROOM_DATABASE_URL',
    doc: '`postgres://…` runs on PostgreSQL; unset runs on SQLite under the data folder.',
    parse: (raw) => {
      const v = optional(raw);
      if (v !== null && !/^postgres(ql)?:\/\//.test(v)) {
        throw new SettingError('PRESSROOM_DATABASE_URL must start with postgres:// or postgresql://');
      }
      return v;
    },
  },
  databaseSchema: {
    env: 'PRESSROOM_DATABASE_SCHEMA',
    doc: 'PostgreSQL schema holding pressroom tables.',
    parse: (raw) => {
      const v = raw || 'public';
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(v)) throw new SettingError('PRESSROOM_DATABASE_SCHEMA must be a plain lower-case identifier');
      return v;
    },
  },
  databaseNamedStatements: {
    env: 'PRESSROOM_DATABASE_NAMED_STATEMENTS',
    doc: 'PostgreSQL: keep the statements every ticket runs parsed on each connection (`true`), or send every statement unnamed (`false`, for a pooler in transaction mode that cannot carry named statements).',
    parse: bool('PRESSROOM_DATABASE_NAMED_STATEMENTS', true),
  },
  blobUrl: {
    env: 'PRESSROOM_BLOB_URL',
    doc: 'Blob store: unset keeps files under `<data>/blobs`; `file:///path` uses another (shared) folder; `s3://<bucket>/<prefix>` a bucket.',
    parse: (raw) => {
      const v = optional(raw);
      if (v === null) return v;
      try {
        parseBlobUrl(v);
      } catch (err) {
        throw new SettingError((err as Error).message, { cause: err });
      }
      return v;
    },
  },
  s3Endpoint: {
    env: 'PRESSROOM_S3_ENDPOINT',
    doc: 'Endpoint of an S3-compatible server (`http(s)://host:port`); unset means AWS S3.',
    parse: (raw) => {
      const v = optional(raw);
      if (v !== null && !/^https?:\/\/[^/?#\s]+\/?$/.test(v)) throw new SettingError(`PRESSROOM_S3_ENDPOINT must be an http:// or https:// URL of a server (no path), got "${v}"`);
      return v;
    },
  },
  s3Region: {
    env: 'PRESSROOM_S3_REGION',
    doc: 'Region the S3 requests are signed for.',
    parse: (raw) => {
      const v = raw || 'us-east-1';
      if (!/^[a-z0-9-]{1,64}$/.test(v)) throw new SettingError(`PRESSROOM_S3_REGION must be a region name such as us-east-1, got "${v}"`);
      return v;
    },
  },
  s3ForcePathStyle: { env: 'PRESSROOM_S3_FORCE_PATH_STYLE', doc: 'Path-style bucket addressing, `true` or `false`.', parse: bool('PRESSROOM_S3_FORCE_PATH_STYLE', false) },
  role: {
    env: 'PRESSROOM_ROLE',
    doc: 'Roles of this process: `all`, `api` or `worker` (the `--role` option overrides it).',
    parse: (raw) => {
      const v = raw || 'all';
      if (v !== 'all' && v !== 'api' && v !== 'worker') throw new SettingError('PRESSROOM_ROLE must be all, api or worker');
      return v;
    },
  },
  adminPassword: {
    env: 'PRESSROOM_ADMIN_PASSWORD',
    doc: `Password of the operator \`admin\` that the embedded service (role \`all\`) creates on its first start (at least ${MIN_PASSWORD_LENGTH} characters); unset: generated into \`<data>/initial-admin-password\`. Processes of role \`api\` or \`worker\` create no operator: use \`pressroom operator create\`.`,
    parse: (raw) => {
      const v = optional(raw);
      if (v !== null && v.length < MIN_PASSWORD_LENGTH) throw new SettingError(`PRESSROOM_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters`);
      return v;
    },
  },
  jwtSecret: {
    env: 'PRESSROOM_JWT_SECRET',
    doc: 'HMAC key for access tokens (at least 32 characters); generated and stored once when unset.',
    parse: (raw) => {
      const v = optional(raw);
      if (v !== null && v.length < 32) throw new SettingError('PRESSROOM_JWT_SECRET must be at least 32 characters');
      return v;
    },
  },
  sealKey: {
    env: 'PRESSROOM_SEAL_KEY',
    doc: 'Key for sealed config.ion values (`pressroom seal`): base64 of 32 random bytes; generated and stored once when unset.',
    parse: (raw) => {
      const v = optional(raw);
      if (v !== null && Buffer.from(v, 'base64').length !== 32) throw new SettingError('PRESSROOM_SEAL_KEY must be the base64 encoding of 32 bytes (openssl rand -base64 32)');
      return v;
    },
  },
  tokenTtlSeconds: { env: 'PRESSROOM_TOKEN_TTL_SECONDS', doc: 'Access token lifetime in seconds.', parse: int('PRESSROOM_TOKEN_TTL_SECONDS', 3600, 60, 31_536_000) },
  tokenRecheckMs: {
    env: 'PRESSROOM_TOKEN_RECHECK_MS',
    doc: 'How long a process trusts its last look at the user, tenant and project a token was issued for; a token whose user was removed or got a new password, or whose tenant or project was deleted, answers 401 at most this much later.',
    parse: int('PRESSROOM_TOKEN_RECHECK_MS', 5000, 0, 10_000),
  },
  authUserFailures: {
    env: 'PRESSROOM_AUTH_USER_FAILURES',
    doc: 'Failed token requests for one user name (any tenant, any address) within the window; every request for that name after them gets 429 until the window ends.',
    parse: int('PRESSROOM_AUTH_USER_FAILURES', 20, 1, 1_000_000),
  },
  authAddressFailures: {
    env: 'PRESSROOM_AUTH_ADDRESS_FAILURES',
    doc: 'Failed token requests from one client address (any user name) within the window; every token request from it after them gets 429 until the window ends.',
    parse: int('PRESSROOM_AUTH_ADDRESS_FAILURES', 100, 1, 1_000_000),
  },
  authFailureWindowSeconds: {
    env: 'PRESSROOM_AUTH_FAILURE_WINDOW_SECONDS',
    doc: 'Window of the two failure limits; it starts with the first failure and the 429 answers carry Retry-After up to its end.',
    parse: int('PRESSROOM_AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 3600),
  },
  jwtIssuer: { env: 'PRESSROOM_JWT_ISSUER', doc: '`iss` claim of access tokens.', parse: str('pressroom') },
  jwtAudience: { env: 'PRESSROOM_JWT_AUDIENCE', doc: '`aud` claim of access tokens.', parse: str('pressroom') },
  bodyLimit: { env: 'PRESSROOM_BODY_LIMIT', doc: 'Largest request body in bytes (413 above).', parse: int('PRESSROOM_BODY_LIMIT', 100 * 1024 * 1024, 1024, 2 ** 31 - 1) },
  logLevel: {
    env: 'PRESSROOM_LOG_LEVEL',
    doc: 'Log level: fatal, error, warn, info, debug, trace or silent.',
    parse: (raw) => {
      const v = raw || 'info';
      if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(v)) throw new SettingError(`PRESSROOM_LOG_LEVEL "${v}" is not a level`);
      return v;
    },
  },
  profiles: { env: 'PRESSROOM_PROFILES', doc: 'Comma-separated service profiles; `trace` adds webhook response bodies to ticket messages.', parse: list },
  renderThreads: { env: 'PRESSROOM_RENDER_THREADS', doc: 'Render processes per worker (default: number of cores).', parse: renderThreads },
  renderMaxRssMb: {
    env: 'PRESSROOM_RENDER_MAX_RSS_MB',
    doc: 'A render process past this many MiB is replaced after its job (Typst caches grow with every compilation).',
    parse: int('PRESSROOM_RENDER_MAX_RSS_MB', 512, 64, 65536),
  },
  renderMaxMemoryMb: {
    env: 'PRESSROOM_RENDER_MAX_MEMORY_MB',
    doc: 'Memory ceiling of one job in a Typst, MuPDF or XSLT process: past it the process is killed, the ticket fails with errorCode 507 and the process is replaced (default: half the memory ÷ render processes, at least 1024). A Typst job may also use what the other render processes leave unused.',
    parse: (raw, env) =>
      int('PRESSROOM_RENDER_MAX_MEMORY_MB', defaultMemoryCeilingMb(machineMemoryBytes(), renderThreads(env.PRESSROOM_RENDER_THREADS)), 192, 65536)(raw),
  },
  renderTimeoutMs: { env: 'PRESSROOM_RENDER_TIMEOUT_MS', doc: 'Longest one render may run; a longer one is stopped and the ticket fails (default ten minutes: a 10 000-product catalogue took 1.3 to 6.4 minutes on 2 cores, depending on the machine).', parse: int('PRESSROOM_RENDER_TIMEOUT_MS', 600_000, 100, 3_600_000) },
  previewTimeoutMs: {
    env: 'PRESSROOM_PREVIEW_TIMEOUT_MS',
    doc: 'Longest one Studio preview may compile when its project sets no maxExecutionMillis: someone is waiting for it, so not the ten minutes a render may take.',
    parse: int('PRESSROOM_PREVIEW_TIMEOUT_MS', 60_000, 100, 3_600_000),
  },
  workerConcurrency: {
    env: 'PRESSROOM_WORKER_CONCURRENCY',
    doc: 'Tickets one worker process runs at once (default: twice the render processes).',
    parse: (raw, env) => int('PRESSROOM_WORKER_CONCURRENCY', 2 * renderThreads(env.PRESSROOM_RENDER_THREADS), 1, 1024)(raw),
  },
  leaseMs: { env: 'PRESSROOM_LEASE_MS', doc: 'Lease of a running step; another worker takes over a ticket whose lease ran out.', parse: int('PRESSROOM_LEASE_MS', 30_000, 1000, 3_600_000) },
  pollMs: { env: 'PRESSROOM_POLL_MS', doc: 'How often an idle worker looks for due tickets (new tickets also wake it at once).', parse: int('PRESSROOM_POLL_MS', 500, 10, 60_000) },
  shutdownGraceMs: {
    env: 'PRESSROOM_SHUTDOWN_GRACE_MS',
    doc: 'On SIGTERM or SIGINT, how long running steps may still finish; the tickets of those still running are then released for another worker at once.',
    parse: int('PRESSROOM_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
  },
  allowPrivateAddresses: {
    env: 'PRESSROOM_ALLOW_PRIVATE_ADDRESSES',
    doc: 'Comma-separated addresses, CIDRs or host names that webhooks and media downloads may reach although loopback or private.',
    parse: list,
  },
  inlineFileMaxBytes: {
    env: 'PRESSROOM_INLINE_FILE_MAX_BYTES',
    doc: "A step's output, log or content file up to this size is kept in its database row, not the blob store (0: every file in the blob store); unset: 128 KiB, or 16 KiB on PostgreSQL with a file blob store.",
    parse: int('PRESSROOM_INLINE_FILE_MAX_BYTES', 128 * 1024, 0, 4 * 1024 * 1024),
  },
  zipMaxBytes: { env: 'PRESSROOM_ZIP_MAX_BYTES', doc: 'Most uncompressed bytes accepted from one ZIP.', parse: int('PRESSROOM_ZIP_MAX_BYTES', 256 * 1024 * 1024, 1024, 2 ** 40) },
  zipMaxEntries: { env: 'PRESSROOM_ZIP_MAX_ENTRIES', doc: 'Most entries accepted in one ZIP.', parse: int('PRESSROOM_ZIP_MAX_ENTRIES', 10_000, 1, 1_000_000) },
  zipMaxRatio: {
    env: 'PRESSROOM_ZIP_MAX_RATIO',
    doc: 'Highest compression ratio (uncompressed:compressed) of any ZIP entry, from its first byte (plus 4 KiB of slack), and of a whole ZIP.',
    parse: int('PRESSROOM_ZIP_MAX_RATIO', 200, 2, 100_000),
  },
  zipConcurrency: {
    env: 'PRESSROOM_ZIP_CONCURRENCY',
    doc: 'ZIP uploads (render input, repository tree) one process unpacks at once; more wait in line and get 503 with Retry-After after 10 s.',
    parse: int('PRESSROOM_ZIP_CONCURRENCY', 2, 1, 1024),
  },
  assetMaxBytes: { env: 'PRESSROOM_ASSET_MAX_BYTES', doc: 'Largest media asset in bytes.', parse: int('PRESSROOM_ASSET_MAX_BYTES', 20 * 1024 * 1024, 1024, 2 ** 31 - 1) },
  assetTimeoutMs: { env: 'PRESSROOM_ASSET_TIMEOUT_MS', doc: 'Longest one media asset download may take.', parse: int('PRESSROOM_ASSET_TIMEOUT_MS', 15_000, 100, 600_000) },
  assetMaxCount: { env: 'PRESSROOM_ASSET_MAX_COUNT', doc: 'Most media asset URLs downloaded for one job.', parse: int('PRESSROOM_ASSET_MAX_COUNT', 50, 0, 10_000) },
  assetCacheBytes: { env: 'PRESSROOM_ASSET_CACHE_BYTES', doc: 'Largest total size of the media asset cache.', parse: int('PRESSROOM_ASSET_CACHE_BYTES', 512 * 1024 * 1024, 0, 2 ** 50) },
  assetCacheTtlSeconds: { env: 'PRESSROOM_ASSET_CACHE_TTL_SECONDS', doc: 'Longest a media asset is kept in the cache.', parse: int('PRESSROOM_ASSET_CACHE_TTL_SECONDS', 86_400, 1, 31_536_000) },
  housekeepingMs: {
    env: 'PRESSROOM_HOUSEKEEPING_MS',
    doc: 'How often each process offers to run housekeeping (deleting expired files and tickets); one process wins each round. 0 turns it off in this process.',
    parse: int('PRESSROOM_HOUSEKEEPING_MS', 60_000, 0, 86_400_000),
  },
  ticketRetentionSeconds: {
    env: 'PRESSROOM_TICKET_RETENTION_SECONDS',
    doc: 'How long the status of a complete ticket stays readable after completion, once its files are gone.',
    parse: int('PRESSROOM_TICKET_RETENTION_SECONDS', 604_800, 0, 31_536_000),
  },
};

/** Thrown when the environment holds invalid settings; lists every problem. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Defaults that follow from other settings, overrides included: a setting neither overridden nor
 * set in the environment takes `derive(settings)` instead of its definition's fallback.
 */
const derivedDefaults: { [K in keyof Settings]?: (settings: Settings) => Settings[K] } = {
  // PostgreSQL cuts a row's file above ~2 KB into TOAST chunks, each a row and an index entry
  // with its WAL. With a file blob store, the bench sheet's 88 KB PDF in a file instead of its
  // row cost PostgreSQL 0.5-1.3 ms less CPU a ticket (9 of 9 rounds, three alternated pairs)
  // for 0.4 ms more of the service's. With S3 the row also saves a PUT and a GET, each a
  // network round trip, so it keeps the SQLite limit (docs/blobs.md).
  inlineFileMaxBytes: (s) => (s.databaseUrl !== null && (s.blobUrl === null || parseBlobUrl(s.blobUrl).kind === 'file') ? 16 * 1024 : 128 * 1024),
};

/** Reads and validates every setting; `overrides` wins over the environment (tests, CLI flags). */
export function loadSettings(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Settings> = {}): Settings {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  const derived: (keyof Settings)[] = [];
  for (const [key, def] of Object.entries(definitions) as [keyof Settings, Definition<keyof Settings>][]) {
    if (key in overrides) {
      out[key] = overrides[key];
      continue;
    }
    if (derivedDefaults[key] && (env[def.env] ?? '') === '') derived.push(key);
    try {
      out[key] = def.parse(env[def.env], env);
    } catch (err) {
      if (err instanceof SettingError) problems.push(err.message);
      else throw err;
    }
  }
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  for (const key of derived) out[key] = derivedDefaults[key]!(out as unknown as Settings);
  return Object.freeze(out) as unknown as Settings;
}
