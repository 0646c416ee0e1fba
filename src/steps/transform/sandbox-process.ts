import { spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { SandboxArgs, SandboxJob, SandboxMessage, SandboxReply } from './sandbox-protocol.js';
import { sandboxMain } from './sandbox-worker.js';
import { TransformError } from './transform-error.js';

const saxonPath = realpathSync(createRequire(import.meta.url).resolve('saxon-js'));
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The node arguments of a sandbox process; docs/transform.md explains each flag. */
function sandboxCommand(args: SandboxArgs, maxMemoryMb: number): string[] {
  // tsx (esbuild keepNames) wraps functions in __name(); outside tsx the shim is unused.
  const source = `const __name = (f, n) => Object.defineProperty(f, 'name', { value: n, configurable: true });
(${sandboxMain.toString()})(${JSON.stringify(args)});`;
  return [
    nodeMajor >= 22 ? '--permission' : '--experimental-permission',
    `--allow-fs-read=${dirname(args.saxonPath)}`,
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${maxMemoryMb}`,
    '--disable-warning=ExperimentalWarning',
    '--input-type=module',
    '-e',
    source,
  ];
}

export interface SandboxProcessOptions {
  stylesheetBaseUri: string;
  outputUri: string;
  sefCacheSize: number;
  maxMemoryMb: number;
  startupTimeoutMs: number;
  logger: Logger;
}

interface Pending {
  id: number;
  name: string;
  resolve: (reply: SandboxReply) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One sandboxed Node.js process running SaxonJS, one job at a time. A job that overruns its
 * time limit gets the process killed; so does close(). Once dead, the process stays dead —
 * the Transformer replaces it.
 */
export class SandboxProcess {
  private readonly child: ChildProcess;
  private readonly ready: Promise<void>;
  private pending: Pending | null = null;
  private stderrTail = '';
  private exited = false;
  private readonly exitPromise: Promise<void>;

  constructor(private readonly opts: SandboxProcessOptions) {
    const args: SandboxArgs = { saxonPath, stylesheetBaseUri: opts.stylesheetBaseUri, outputUri: opts.outputUri, sefCacheSize: opts.sefCacheSize };
    this.child = spawn(process.execPath, sandboxCommand(args, opts.maxMemoryMb), {
      env: {},
      cwd: dirname(saxonPath),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2000);
    });
    this.exitPromise = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new TransformError('runtime', 'the transform process did not start in time'));
        void this.kill();
      }, opts.startupTimeoutMs);
      this.child.on('message', (message: SandboxMessage) => {
        if ('ready' in message) {
          clearTimeout(timer);
          resolve();
        } else this.settle(message);
      });
      this.child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.exited = true;
        const how = signal ?? `exit code ${code}`;
        reject(new TransformError('runtime', `the transform process failed to start (${how})`));
        this.onExit(how);
      });
    });
    this.ready.catch(() => undefined);
  }

  /** True once the process has ended; it takes no more jobs. */
  get dead(): boolean {
    return this.exited || this.child.killed;
  }

  /** The process id, for tests and logs. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends one job once the process is ready; rejects with a TransformError on time-out or crash. */
  async run(job: SandboxJob, name: string, timeoutMs: number): Promise<SandboxReply> {
    await this.ready.catch((err: Error) => {
      throw new TransformError('runtime', `${name}: ${err.message}`);
    });
    if (this.dead || !this.child.connected) throw new TransformError('runtime', `${name}: the transform process is gone`);
    return new Promise<SandboxReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        this.opts.logger.warn({ stylesheet: name, timeoutMs }, 'transform exceeded its time limit; killing its process');
        reject(new TransformError('timeout', `${name}: transform stopped after ${timeoutMs} ms (time limit)`));
        void this.kill();
      }, timeoutMs);
      this.pending = { id: job.id, name, resolve, reject, timer };
      this.child.send(job, (err) => {
        if (!err || this.pending?.id !== job.id) return;
        clearTimeout(timer);
        this.pending = null;
        reject(new TransformError('runtime', `${name}: could not hand the job to the transform process (${err.message})`));
        void this.kill();
      });
    });
  }

  /** Kills the process (SIGKILL) and waits for it to end. */
  async kill(): Promise<void> {
    if (!this.exited) this.child.kill('SIGKILL');
    await this.exitPromise;
  }

  private settle(reply: SandboxReply): void {
    const pending = this.pending;
    if (!pending || pending.id !== reply.id) return;
    clearTimeout(pending.timer);
    this.pending = null;
    pending.resolve(reply);
  }

  private onExit(how: string): void {
    const pending = this.pending;
    this.pending = null;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.opts.logger.warn({ stylesheet: pending.name, how, stderr: this.stderrTail }, 'transform process ended during a transform');
    pending.reject(
      new TransformError('runtime', `${pending.name}: the transform process ended unexpectedly (${how}); the stylesheet may have run out of memory`),
    );
  }
}
