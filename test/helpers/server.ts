import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { createOperator } from '../../src/auth/index.js';
import { loadSettings, type Settings } from '../../src/config/settings.js';
import { AppError } from '../../src/errors.js';
import { startServer, type Server } from '../../src/server.js';
import { testDatabaseUrl, type StoreKind } from './stores.js';

export const ADMIN_PASSWORD = 'operator-secret-pw';

/** A started pressroom on a fresh data folder (and a fresh PostgreSQL schema), on a free port. */
export interface TestServer {
  readonly server: Server;
  readonly url: string;
  readonly settings: Settings;
  /** Fetch relative to the server root with sensible defaults (Accept JSON). */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** A token from the real token endpoint. */
  token(tenant: string, project: string, scope: 'jobs' | 'admin', user?: string, password?: string): Promise<string>;
  /** The operator token (admin on tenant system). */
  operatorToken(): Promise<string>;
  close(): Promise<void>;
}

/** Settings for a fresh, isolated instance (also used by CLI tests to share a data folder). */
export async function freshSettings(kind: StoreKind, overrides: Partial<Settings> = {}): Promise<{ settings: Settings; env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pressroom-test-'));
  const env: Record<string, string> = {
    PRESSROOM_DATA: dataDir,
    PRESSROOM_PORT: '0',
    PRESSROOM_ADMIN_PASSWORD: ADMIN_PASSWORD,
    PRESSROOM_LOG_LEVEL: process.env.PRESSROOM_LOG_LEVEL ?? 'silent',
  };
  let schema: string | null = null;
  if (kind === 'postgres') {
    const url = testDatabaseUrl();
    if (!url) throw new Error('PRESSROOM_TEST_DATABASE_URL not set');
    schema = `t_${randomBytes(6).toString('hex')}`;
    env.PRESSROOM_DATABASE_URL = url;
    env.PRESSROOM_DATABASE_SCHEMA = schema;
  }
  const settings = loadSettings(env, overrides);
  return {
    settings,
    env,
    async cleanup() {
      if (schema) {
        const client = new pg.Client({ connectionString: testDatabaseUrl() });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a server for one test suite. */
export async function startTestServer(kind: StoreKind, overrides: Partial<Settings> = {}, opts: { now?: () => number; logger?: Logger } = {}): Promise<TestServer> {
  const { settings, cleanup } = await freshSettings(kind, overrides);
  return startTestServerOn(settings, cleanup, opts);
}

/** Starts a server on given settings; `close` stops it, then runs `cleanup`. */
export async function startTestServerOn(settings: Settings, cleanup: () => Promise<void>, opts: { now?: () => number; logger?: Logger } = {}): Promise<TestServer> {
  const server = await startServer(settings, { ...opts });
  // Only the embedded service (role all) creates the operator; for the others the test does
  // what `pressroom operator create` does (the CLI itself is tested in cli.test.ts).
  if (settings.role !== 'all') {
    await createOperator(server.ctx.db, { name: 'admin', password: ADMIN_PASSWORD }).catch((err: unknown) => {
      if (!(err instanceof AppError && err.code === 'conflict')) throw err;
    });
  }
  const url = server.url!;
  const t: TestServer = {
    server,
    url,
    settings,
    async fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      return fetch(url + path, { ...init, headers });
    },
    async token(tenant, project, scope, user = 'admin', password = ADMIN_PASSWORD) {
      const res = await fetch(`${url}/auth/${tenant}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ username: user, password, project, scope }).toString(),
      });
      if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    operatorToken() {
      return t.token('system', 'admin', 'admin');
    },
    async close() {
      await server.stop();
      await cleanup();
    },
  };
  return t;
}
