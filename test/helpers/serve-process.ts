import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD, type TestServer } from './server.js';
import { createOperatorWithCli } from './operator.js';
import { crash } from './worker-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What the project helpers need of a server: fetch and tokens (an in-process or a child server). */
export type ServerClient = Pick<TestServer, 'url' | 'fetch' | 'token' | 'operatorToken'>;

/** The environment of a child: nothing of ours leaks in except what the test passes. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PRESSROOM_') && !k.startsWith('NODE_TEST')) env[k] = v;
  }
  return { ...env, PRESSROOM_LOG_LEVEL: 'silent', ...extra };
}

function roleOf(env: Record<string, string>, args: string[]): 'all' | 'api' | 'worker' {
  const i = args.indexOf('--role');
  const role = i >= 0 ? args[i + 1] : env.PRESSROOM_ROLE;
  return role === 'api' || role === 'worker' ? role : 'all';
}

/** A real `pressroom serve` process (its own Node process, so its memory can be measured). */
export class ServeProcess implements ServerClient {
  readonly proc: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  url = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(args: string[], env: Record<string, string>) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', ...args], { cwd: root, env: childEnv(env) });
    this.proc.stdout.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.proc.stdin.end();
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /**
   * Starts `pressroom serve <args>` and, unless it runs without the api role, waits until it
   * listens (up to `ms`). An api or worker process creates no operator, so one is created first
   * with `pressroom operator create`, as the README's scale-out section does.
   */
  static async start(env: Record<string, string>, args: string[] = [], ms = 60_000): Promise<ServeProcess> {
    if (roleOf(env, args) !== 'all') await createOperatorWithCli(env);
    return ServeProcess.startBare(env, args, ms);
  }

  /** Like `start`, without creating an operator. */
  static async startBare(env: Record<string, string>, args: string[] = [], ms = 60_000): Promise<ServeProcess> {
    const child = new ServeProcess(args, env);
    if (roleOf(env, args) === 'worker') return child;
    const deadline = Date.now() + ms;
    for (;;) {
      const m = /pressroom listening on (http:\/\/\S+) /.exec(child.stdout);
      if (m) {
        child.url = m[1]!;
        return child;
      }
      if (child.proc.exitCode !== null) throw new Error(`serve exited ${child.proc.exitCode}: ${child.stdout}\n${child.stderr}`);
      if (Date.now() > deadline) {
        child.proc.kill('SIGKILL');
        throw new Error(`serve not listening after ${ms} ms: ${child.stdout}\n${child.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Resident set size now, and its peak so far (VmHWM), in bytes (Linux /proc). */
  memory(): { rss: number; peak: number } {
    const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  }

  async fetch(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    return fetch(this.url + path, { ...init, headers });
  }

  async token(tenant: string, project: string, scope: 'jobs' | 'admin', user = 'admin', password = ADMIN_PASSWORD): Promise<string> {
    const res = await this.fetch(`/auth/${tenant}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: user, password, project, scope }).toString(),
    });
    if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  operatorToken(): Promise<string> {
    return this.token('system', 'admin', 'admin');
  }

  /** Sends a signal and waits for the exit; SIGKILL (to it and its render processes) at once or after `ms`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', ms = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (signal === 'SIGKILL') await crash(this.proc);
    else if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    const timer = setTimeout(() => void crash(this.proc), ms);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
