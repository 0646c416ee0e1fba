import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ADMIN_PASSWORD, freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The environment of a CLI child: nothing of ours leaks in except what the test passes. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PRESSROOM_') && !k.startsWith('NODE_TEST')) env[k] = v;
  }
  return { ...env, PRESSROOM_LOG_LEVEL: 'silent', ...extra };
}

/** A `pressroom <args>` child with its output collected as it arrives. */
class Child {
  readonly proc: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], env: Record<string, string>) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, env: childEnv(env) });
    this.proc.stdout.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.proc.stdin.end();
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Waits until stdout matches, failing early if the process exits or time runs out. */
  async waitFor(re: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = re.exec(this.stdout);
      if (m) return m;
      if (this.proc.exitCode !== null) throw new Error(`exited ${this.proc.exitCode} before ${re}: ${this.stdout}\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no ${re} within ${ms} ms: ${this.stdout}\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Resolves with the exit status, or rejects after `ms` (and kills the child). */
  async exit(ms = 30_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.proc.kill('SIGKILL');
        reject(new Error(`still running after ${ms} ms: ${this.stdout}\n${this.stderr}`));
      }, ms);
    });
    try {
      return { ...(await Promise.race([this.exited, timeout])), ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }
}

describeEachStore('pressroom serve', (kind) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`starts, answers probes and tokens, and exits 0 on ${signal}`, async () => {
      const fresh = await freshSettings(kind);
      const child = new Child(['serve'], fresh.env);
      try {
        const [, url] = await child.waitFor(/pressroom listening on (http:\/\/[^\s]+) \(rendering \S+\/rest, tokens \S+\/auth\)/);
        assert.ok(url);
        const health = await fetch(`${url}/healthz`);
        assert.equal(health.status, 200);
        assert.deepEqual(await health.json(), { status: 'ok' });
        assert.equal((await fetch(`${url}/readyz`)).status, 200);

        const token = await fetch(`${url}/auth/system/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ username: 'admin', password: ADMIN_PASSWORD, project: 'admin', scope: 'admin' }).toString(),
        });
        assert.equal(token.status, 200);
        const metrics = await fetch(`${url}/metrics`);
        assert.equal(metrics.status, 200);
        const text = await metrics.text();
        assert.match(text, /^# TYPE pressroom_http_request_duration_seconds histogram$/m);
        assert.match(text, /pressroom_http_request_duration_seconds_count\{method="POST",route="\/auth\/:tenant\/tokens",status="200"\} 1/);

        child.proc.kill(signal);
        const { code, signal: killedBy, ms } = await child.exit(10_000);
        assert.equal(killedBy, null);
        assert.equal(code, 0, child.stderr);
        assert.ok(ms < 30_000, `took ${ms} ms to stop`);
        await assert.rejects(fetch(`${url}/healthz`));
      } finally {
        if (child.proc.exitCode === null) {
          child.proc.kill('SIGKILL');
          await child.exited;
        }
        await fresh.cleanup();
      }
    });
  }

  it('stops on SIGTERM without waiting for connections that never sent a request', async () => {
    const fresh = await freshSettings(kind);
    const child = new Child(['serve'], fresh.env);
    const silent = new Socket();
    try {
      const [, url] = await child.waitFor(/pressroom listening on (http:\/\/[^\s]+) /);
      const { hostname, port } = new URL(url!);
      // As a load balancer or an HTTP client opens connections ahead of use: connected, nothing sent.
      await new Promise<void>((resolve, reject) => silent.connect(Number(port), hostname, resolve).once('error', reject));
      const serverClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
      silent.resume();
      assert.equal((await fetch(`${url}/healthz`)).status, 200);

      child.proc.kill('SIGTERM');
      // Node would hold such a connection until its header timeout (60 s, checked every 30 s): the
      // process must exit well before that, however loaded the machine.
      const { code, signal: killedBy } = await child.exit(45_000);
      assert.equal(killedBy, null);
      assert.equal(code, 0, child.stderr);
      await serverClosed;
    } finally {
      silent.destroy();
      if (child.proc.exitCode === null) {
        child.proc.kill('SIGKILL');
        await child.exited;
      }
      await fresh.cleanup();
    }
  });

  it('migrate applies the migrations, then reports an up-to-date database; exit 0', async () => {
    const fresh = await freshSettings(kind);
    try {
      const first = new Child(['migrate'], fresh.env);
      const one = await first.exit();
      assert.equal(one.code, 0, first.stderr);
      assert.match(first.stdout, /^applied: 001-foundation/);
      const second = new Child(['migrate'], fresh.env);
      const two = await second.exit();
      assert.equal(two.code, 0, second.stderr);
      assert.equal(second.stdout, 'database is up to date\n');
    } finally {
      await fresh.cleanup();
    }
  });
});

describe('pressroom serve with invalid settings', () => {
  it('exits 2 and lists every problem at once', async () => {
    const child = new Child(['serve'], { PRESSROOM_PORT: 'abc', PRESSROOM_LOG_LEVEL: 'loud', PRESSROOM_DATA: '/nonexistent/never-used' });
    const { code } = await child.exit();
    assert.equal(code, 2);
    assert.match(child.stderr, /^invalid settings:/);
    assert.match(child.stderr, /PRESSROOM_PORT must be an integer from 0 to 65535, got "abc"/);
    assert.match(child.stderr, /PRESSROOM_LOG_LEVEL "loud" is not a level/);
    assert.equal(child.stdout, '');
  });

  it('exits 1 with a message when the port is taken', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const fresh = await freshSettings('sqlite');
    try {
      const child = new Child(['serve'], { ...fresh.env, PRESSROOM_PORT: String(port) });
      const { code } = await child.exit();
      assert.equal(code, 1);
      assert.match(child.stderr, /EADDRINUSE/);
    } finally {
      blocker.close();
      await fresh.cleanup();
    }
  });
});
