import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built service (dist/) as its own process on a fresh data folder. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const data = await mkdtemp(join(tmpdir(), 'pressroom-bench-'));
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the server process there (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, 'dist/cli/main.js', 'serve'], {
    env: { ...process.env, PRESSROOM_DATA: data, PRESSROOM_PORT: '0', PRESSROOM_ADMIN_PASSWORD: 'bench-admin-pw', PRESSROOM_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!.replace(/\s.*$/, ''));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident memory (MiB) of a process and, separately, of its direct children. */
export function rssMiB(pid: number): { self: number; children: number } {
  const rss = (p: number | string): number => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  let children = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children += rss(entry);
    } catch {
      // process went away while we looked
    }
  }
  return { self: rss(pid), children };
}
