import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** One `pressroom serve --role api|worker` child process of a test cluster. */
export interface Member {
  readonly role: 'api' | 'worker';
  readonly child: ChildProcess;
  readonly pid: number;
  /** Base URL (api role), known once it listens. */
  readonly url: string | null;
  /** Everything it wrote to stderr (for failure messages). */
  stderr(): string;
}

/**
 * Starts a cluster member on `env` with a data folder of its own (nothing shared but the
 * database and the bucket) and resolves once it serves: an API answers /readyz with 200,
 * a worker has logged that it started.
 */
export async function startMember(role: 'api' | 'worker', env: Record<string, string>, timeoutMs = 120_000): Promise<Member> {
  const dataDir = await mkdtemp(join(tmpdir(), `pressroom-${role}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', role], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env, PRESSROOM_DATA: dataDir, PRESSROOM_PORT: '0', PRESSROOM_LOG_LEVEL: role === 'worker' ? 'info' : 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', () => void rm(dataDir, { recursive: true, force: true }));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let url: string | null = null;
  let started = false;
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const listening = /^pressroom listening on (http:\/\/\S+)/.exec(line);
      if (listening) url = listening[1]!;
      if (line.includes('"msg":"pressroom started"')) started = true;
    }
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${role} exited (${child.exitCode ?? child.signalCode}): ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${role} not ready after ${timeoutMs} ms: ${stderr}`);
    }
    if (role === 'worker' && started) break;
    if (role === 'api' && url) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { role, child, pid: child.pid!, url, stderr: () => stderr };
}

/** SIGKILL, then wait for the exit. */
export async function kill(member: Member): Promise<void> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return;
  const exited = new Promise((resolve) => member.child.once('exit', resolve));
  member.child.kill('SIGKILL');
  await exited;
}

/** SIGTERM (a clean stop), then wait for the exit code. */
export async function stop(member: Member): Promise<number | null> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return member.child.exitCode;
  const exited = new Promise<number | null>((resolve) => member.child.once('exit', (code) => resolve(code)));
  member.child.kill('SIGTERM');
  return exited;
}
