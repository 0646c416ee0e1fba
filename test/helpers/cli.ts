import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Settings } from '../../src/config/settings.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI child: nothing of ours leaks in except what the test passes. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PRESSROOM_') && !k.startsWith('NODE_TEST')) env[k] = v;
  }
  return { ...env, PRESSROOM_LOG_LEVEL: 'silent', ...extra };
}

/** Runs `pressroom <args>` as a child process (TypeScript through tsx), feeding `input` on stdin. */
export function cli(args: string[], env: Record<string, string>, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Only ends a hung command; a CLI start on a busy 2-core machine can take tens of seconds.
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** The env that points a CLI child at the same store as a running server. */
export function storeEnv(settings: Settings): Record<string, string> {
  return {
    PRESSROOM_DATA: settings.dataDir,
    ...(settings.databaseUrl ? { PRESSROOM_DATABASE_URL: settings.databaseUrl, PRESSROOM_DATABASE_SCHEMA: settings.databaseSchema } : {}),
  };
}

export async function tokenStatus(url: string, tenant: string, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/auth/${tenant}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

