import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pino, { type Logger } from 'pino';
import { PoolError, ProcessPool, type PoolStats } from '../pool/index.js';
import { LruCache } from './lru-cache.js';
import { sandboxCommand } from './sandbox-command.js';
import type { SandboxFailure, SandboxJob, SandboxReply } from './sandbox-protocol.js';
import { TransformError } from './transform-error.js';

/** One XSLT 3.0 transform: a tenant's stylesheet applied to XML or JSON input. */
export interface TransformRequest {
  /** The .xslt file content: tenant-supplied code. */
  stylesheet: Buffer;
  /** Shown in error messages, e.g. `orders.xslt`. */
  stylesheetName: string;
  /** XML or JSON text. JSON reaches the stylesheet as `json-to-xml($json)`, see docs/transform.md. */
  input: Buffer;
  inputType: 'xml' | 'json';
  /** Stylesheet parameters (`xsl:param`), passed as untyped atomic values. */
  params?: Record<string, string>;
  /** Overrides the Transformer's time limit for this transform. */
  timeoutMs?: number;
}

export interface TransformerOptions {
  /** Sandbox processes, i.e. transforms running at once. @defaultValue 2 (1 on a single core) */
  processes?: number;
  /** Time limit of one transform, compilation included, in ms; the service passes PRESSROOM_RENDER_TIMEOUT_MS. @defaultValue 600000 */
  timeoutMs?: number;
  /** Compiled stylesheets kept, keyed by the sha256 of the stylesheet. @defaultValue 100 */
  cacheSize?: number;
  /** Heap limit of a sandbox process in MiB (`--max-old-space-size`). @defaultValue 512 */
  maxMemoryMb?: number;
  /** Memory ceiling of a sandbox process while it transforms, in MiB: past it the process is killed (code `memory`). */
  memoryCeilingMb?: number;
  logger?: Logger;
}

/** Counters for tests, metrics and the benchmark. */
export interface TransformerStats {
  /** Stylesheets sent to a sandbox for compilation. */
  compiles: number;
  /** Transforms that reused a compiled stylesheet (or its cached compile error). */
  cacheHits: number;
  cachedStylesheets: number;
  /** Sandbox processes started so far. */
  processesStarted: number;
  liveProcesses: number;
  queued: number;
}

type Compiled = { sef: string } | { failure: SandboxFailure };

const STYLESHEET_BASE_URI = 'urn:pressroom:stylesheet';
const OUTPUT_URI = 'file:///pressroom/principal-result.xml';
const PARAM_NAME = /^[\p{L}_][\p{L}\p{N}_.\-\u00B7]*$/u;

/**
 * The XSLT engine as its users hold it. An interface (the class below is its one implementation)
 * so a module that may not import the engines, the Context, can carry it by declaring the same shape.
 */
export interface Transformer {
  /** Transforms the input; resolves to the serialized principal result, rejects with a TransformError. */
  transform(req: TransformRequest): Promise<Buffer>;
  /** Counters since construction. */
  stats(): TransformerStats;
  /** Busy, idle and queued sandbox slots, for metrics. */
  poolStats(): PoolStats;
  /** Stops every sandbox process; queued and running transforms fail. */
  close(): Promise<void>;
}

/**
 * Runs XSLT 3.0 with SaxonJS in sandboxed processes of the process pool. A stylesheet is
 * compiled once per content hash; the compiled form (SEF) is kept in a bounded LRU and sent
 * with later jobs. Requests queue while every process is busy.
 */
class SaxonTransformer implements Transformer {
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly compiled: LruCache<string, Compiled>;
  private readonly pool: ProcessPool<SandboxJob, SandboxReply>;
  private readonly counters = { compiles: 0, cacheHits: 0 };
  private closed = false;

  constructor(opts: TransformerOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 600_000;
    this.compiled = new LruCache(Math.max(1, opts.cacheSize ?? 100));
    this.logger = opts.logger ?? pino({ level: 'silent' });
    const maxMemoryMb = opts.maxMemoryMb ?? 512;
    this.pool = new ProcessPool({
      name: 'xslt',
      size: Math.max(1, opts.processes ?? Math.min(2, availableParallelism())),
      timeoutMs: this.timeoutMs,
      ...(opts.memoryCeilingMb ? { memoryCeilingBytes: opts.memoryCeilingMb * 1024 * 1024 } : {}),
      logger: this.logger,
      command: () => sandboxCommand({ stylesheetBaseUri: STYLESHEET_BASE_URI, outputUri: OUTPUT_URI, sefCacheSize: 16 }, maxMemoryMb),
    });
  }

  /** Transforms the input; resolves to the serialized principal result, rejects with a TransformError. */
  async transform(req: TransformRequest): Promise<Buffer> {
    if (req.inputType !== 'xml' && req.inputType !== 'json') throw new TypeError(`unknown inputType ${String(req.inputType)}`);
    if (this.closed) throw new TransformError('runtime', 'the transformer is closed');
    const name = req.stylesheetName;
    const key = createHash('sha256').update(req.stylesheet).digest('hex');
    const known = this.compiled.get(key);
    if (known && 'failure' in known) {
      this.counters.cacheHits++;
      throw describeFailure(name, known.failure);
    }
    const params = this.checkedParams(name, req.params ?? {});
    // Built when a process is free, so a stylesheet compiled meanwhile by another job is reused.
    const job = (): SandboxJob => {
      const cached = this.compiled.get(key);
      const sef = cached && 'sef' in cached ? cached.sef : null;
      if (sef === null) this.counters.compiles++;
      else this.counters.cacheHits++;
      return { sefKey: key, sef, stylesheet: sef === null ? req.stylesheet : null, input: req.input, inputType: req.inputType, params };
    };
    const reply = await this.pool.run(job, { timeoutMs: req.timeoutMs ?? this.timeoutMs }).catch((err: unknown) => {
      throw err instanceof PoolError ? transformErrorOf(name, err) : err;
    });
    if (reply.sef !== null) this.compiled.set(key, { sef: reply.sef });
    if (reply.messages.length > 0) this.logger.debug({ stylesheet: name, messages: reply.messages }, 'xsl:message output');
    if (!reply.ok) {
      if (reply.failure.kind === 'compile') this.compiled.set(key, { failure: reply.failure });
      throw describeFailure(name, reply.failure);
    }
    return Buffer.from(reply.output.buffer, reply.output.byteOffset, reply.output.byteLength);
  }

  /** Counters since construction. */
  stats(): TransformerStats {
    const pool = this.pool.stats();
    return { ...this.counters, cachedStylesheets: this.compiled.size, processesStarted: pool.started, liveProcesses: pool.starting + pool.idle + pool.busy, queued: pool.queued };
  }

  /** Busy, idle and queued sandbox slots, for metrics. */
  poolStats(): PoolStats {
    return this.pool.stats();
  }

  /** Stops every sandbox process; queued and running transforms fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }

  private checkedParams(name: string, params: Record<string, string>): Record<string, string> {
    const result: Record<string, string> = {};
    for (const [key, value] of Object.entries(params)) {
      if (PARAM_NAME.test(key)) result[key] = String(value);
      else this.logger.warn({ stylesheet: name, param: key }, 'parameter name is not a valid XSLT name; not passed');
    }
    return result;
  }
}

/** `new Transformer(options)`: the sandboxed SaxonJS engine; its processes start on first use. */
export const Transformer: new (opts?: TransformerOptions) => Transformer = SaxonTransformer;

/** Words a pool failure for the tenant, naming the stylesheet. */
function transformErrorOf(name: string, err: PoolError): TransformError {
  switch (err.kind) {
    case 'timeout':
      return new TransformError('timeout', `${name}: transform stopped after ${err.detail.timeoutMs} ms (time limit)`);
    case 'memory':
      return new TransformError('memory', `${name}: transform stopped: the transform process passed the memory ceiling of ${err.detail.ceilingMb} MiB`);
    case 'closed':
      return new TransformError('runtime', 'the transformer is closed');
    default:
      if (err.detail.starting) return new TransformError('runtime', `${name}: the transform process failed to start (${err.detail.how})`);
      if (err.detail.how) return new TransformError('runtime', `${name}: the transform process ended unexpectedly (${err.detail.how}); the stylesheet may have run out of memory`);
      return new TransformError('runtime', `${name}: ${err.message}`);
  }
}

/** Words a sandbox failure for the tenant: `orders.xslt: compile error XTSE0010 at line 3: …`. */
function describeFailure(name: string, failure: SandboxFailure): TransformError {
  const stage = { compile: 'compile error', runtime: 'error', output: 'output error' }[failure.kind];
  const where = [failure.xsltCode, failure.line !== null ? `at line ${failure.line}` : null].filter(Boolean).join(' ');
  const message = failure.message.replaceAll(STYLESHEET_BASE_URI, name);
  return new TransformError(failure.kind, `${name}: ${stage}${where ? ` ${where}` : ''}: ${message}`, {
    ...(failure.xsltCode ? { xsltCode: failure.xsltCode } : {}),
    ...(failure.line !== null ? { line: failure.line } : {}),
  });
}
