import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The `start` script in package.json: its environment assignments (before `node`) and Node.js
 * flags (between `node` and the script), so the bench runs the service as `npm start` does.
 */
export const SERVICE_START: { env: Record<string, string>; flags: string[] } = (() => {
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const m = /^((?:[A-Z_]+=\S+\s+)*)node((?:\s+--\S+)*)\s+dist\/cli\/main\.js serve$/.exec(start);
  if (!m) throw new Error(`bench: cannot read the environment and Node.js flags of the start script: ${start}`);
  const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
  return { env: Object.fromEntries(words(m[1]!).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)])), flags: words(m[2]!) };
})();

/**
 * Data folders of stopped servers, removed by {@link removeDataFolders} at the end of the run.
 * Removing one at once would make the next section's file creation pay for it: on ext4 without
 * a journal (this machine's root file system), a new file or folder skips every inode freed
 * in the last minutes, reading each one's inode block. Creating a folder and a file, as a
 * ticket's input does, cost 0.16 ms of kernel CPU on a quiet file system and 0.9–1.35 ms right
 * after 6000 folders with a file each were removed.
 */
const leftFolders: string[] = [];

/** Removes the data folders of every server stopped so far. */
export function removeDataFolders(): void {
  for (const folder of leftFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** Names the data folders of every server stopped so far, which stay (`BENCH_KEEP_DATA`). */
export function reportDataFolders(): void {
  if (leftFolders.length > 0) console.error(`data folders kept (BENCH_KEEP_DATA): ${leftFolders.join(' ')}`);
}

export interface BenchServer {
  /** Base URL of the HTTP API (empty for a worker-only process). */
  url: string;
  child: ChildProcess;
  /** The data folder (PRESSROOM_DATA) the process runs on. */
  data: string;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  /** `serve --role <role>`; default: the embedded process (role all). */
  role?: 'all' | 'api' | 'worker';
  /** Run on this data folder (shared with another process); default: a fresh one, removed at the end of the run. */
  data?: string;
}

/** The first capture of `pattern` in what `child` prints once it says where it listens; rejects if it exits first. */
export function listeningOn(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const read = (d: Buffer): void => {
      out += d.toString();
      const m = pattern.exec(out);
      if (!m) return;
      resolve(m[1]!);
      // Later output (traces asked for with BENCH_NODE_FLAGS) goes to a file under
      // BENCH_OUTPUT, or is read and dropped: either way the service never blocks on a full
      // pipe and this process holds none of it.
      child.stdout!.off('data', read);
      if (process.env.BENCH_OUTPUT) keepOutput(child, process.env.BENCH_OUTPUT, what, out);
      else child.stdout!.resume();
    };
    child.stdout!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening`)));
  });
}

/** Writes `child`'s standard output, `before` and all that follows, to `<dir>/<what>-<pid>.log` (e.g. `server-4242.log`). */
function keepOutput(child: ChildProcess, dir: string, what: string, before: string): void {
  mkdirSync(dir, { recursive: true });
  const file = createWriteStream(join(dir, `${what.replace(/\W+/g, '-')}-${child.pid}.log`));
  file.write(before);
  child.stdout!.pipe(file);
}

/**
 * The Node.js flags asked for on the command line of `npm run bench`, for the service's processes
 * and the floor server alike: BENCH_PROFILE=<dir> writes a V8 CPU profile of each there (open it
 * in Chrome DevTools); BENCH_NODE_FLAGS adds flags of one's own (`--perf-basic-prof` for perf,
 * `--trace-deopt`).
 */
export function benchNodeFlags(): string[] {
  return [
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
  ];
}

/**
 * Starts the built service (dist/) as its own process on a fresh data folder (SQLite, file
 * blobs) unless `env` names a database. Resolves once it listens (a worker: once its metrics
 * port, asked for as port 0, listens).
 */
export async function startBenchServer(env: Record<string, string> = {}, opts: BenchServerOptions = {}): Promise<BenchServer> {
  const data = opts.data ?? mkdtempSync(join(tmpdir(), 'pressroom-bench-'));
  const benchFlags = benchNodeFlags();
  const role = opts.role ? ['--role', opts.role] : [];
  // The environment and Node.js flags `npm start` runs the service with (package.json), so the figures are of that.
  const child = spawn(process.execPath, [...benchFlags, ...SERVICE_START.flags, 'dist/cli/main.js', 'serve', ...role], {
    env: {
      ...process.env,
      ...SERVICE_START.env,
      PRESSROOM_DATA: data,
      PRESSROOM_PORT: '0',
      PRESSROOM_ADMIN_PASSWORD: 'bench-admin-pw',
      PRESSROOM_LOG_LEVEL: 'warn',
      ...(opts.role === 'worker' ? { PRESSROOM_METRICS_PORT: '0' } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const announced = await listeningOn(child, /(?:listening|worker metrics) on (http:\/\/\S+)/, 'server');
  const url = opts.role === 'worker' ? '' : announced.replace(/\s.*$/, '');
  return {
    url,
    child,
    data,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          // The service gives running steps a grace period (10 s) on SIGTERM; past 30 s it is killed.
          const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        });
      }
      if (!opts.data) leftFolders.push(data);
    },
  };
}
