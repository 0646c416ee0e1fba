// The first operator of a cluster: `pressroom operator create|reset-password` on the command line,
// api and worker processes that never create one, and one password policy everywhere.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import { loadSettings } from '../src/config/settings.js';
import { cli, tokenStatus } from './helpers/cli.js';
import { ServeProcess } from './helpers/serve-process.js';
import { freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const operatorGrant = (url: string, password: string) => tokenStatus(url, 'system', { username: 'admin', password, project: 'admin', scope: 'admin' });

describe('operator CLI usage', () => {
  it('operator --help exits 0 and lists create and reset-password', async () => {
    const run = await cli(['operator', '--help'], {});
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /pressroom operator create/);
    assert.match(run.stdout, /pressroom operator reset-password/);
    const top = await cli(['--help'], {});
    assert.match(top.stdout, /operator create/);
  });

  it('answers a bad command line with exit 2 and the usage', async () => {
    for (const args of [['operator'], ['operator', 'frobnicate'], ['operator', 'create', 'a', 'b'], ['operator', 'create', '--bogus']]) {
      const run = await cli(args, {});
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /usage: pressroom operator/, args.join(' '));
    }
  });

  it('refuses a PRESSROOM_ADMIN_PASSWORD shorter than 12 characters at start', () => {
    assert.throws(() => loadSettings({ PRESSROOM_ADMIN_PASSWORD: 'eleven-char' }), /PRESSROOM_ADMIN_PASSWORD must be at least 12 characters/);
    assert.equal(loadSettings({ PRESSROOM_ADMIN_PASSWORD: 'twelve-chars' }).adminPassword, 'twelve-chars');
  });
});

describeEachStore('operator bootstrap in a cluster', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  const processes: ServeProcess[] = [];
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.stop();
    for (const c of cleanups.splice(0)) await c();
  });

  /** A fresh store without PRESSROOM_ADMIN_PASSWORD: the env an operator's shell would have. */
  async function store(): Promise<{ env: Record<string, string>; dataDir: string }> {
    const fresh = await freshSettings(kind);
    cleanups.push(fresh.cleanup);
    const env = { ...fresh.env };
    delete env.PRESSROOM_ADMIN_PASSWORD;
    return { env, dataDir: fresh.settings.dataDir };
  }

  it('an api process creates no operator and writes no password file; operator create makes the first one', async () => {
    const { env, dataDir } = await store();
    const api = await ServeProcess.startBare({ ...env, PRESSROOM_ADMIN_PASSWORD: 'would-be-operator-pw' }, ['--role', 'api']);
    processes.push(api);
    assert.equal((await operatorGrant(api.url, 'would-be-operator-pw')).status, 401, 'the api process made no operator');
    assert.deepEqual((await readdir(dataDir)).filter((f) => f.includes('password')), []);
    const listed = await cli(['users', 'list', '--json'], env);
    assert.deepEqual(JSON.parse(listed.stdout), []);

    const short = await cli(['operator', 'create', '--password-stdin'], env, 'short-pw\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);

    const created = await cli(['operator', 'create', '--password-stdin'], env, 'first-operator-pw\n');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'created operator admin\n');
    assert.equal((await operatorGrant(api.url, 'first-operator-pw')).status, 200);

    const again = await cli(['operator', 'create', '--password-stdin'], env, 'another-operator-pw\n');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists/);
    assert.equal((await operatorGrant(api.url, 'first-operator-pw')).status, 200, 'the first operator stands');
    assert.ok(!api.stdout.includes('first-operator-pw') && !api.stderr.includes('first-operator-pw'));
  });

  it('a generated password is printed once on the command output; reset-password replaces it and revokes tokens', async () => {
    const { env } = await store();
    const created = await cli(['operator', 'create', 'ops'], env);
    assert.equal(created.code, 0, created.stderr);
    const generated = /password \(shown only now\): (\S+)\n$/.exec(created.stdout)?.[1];
    assert.ok(generated && generated.length >= 12, created.stdout);

    const api = await ServeProcess.startBare(env, ['--role', 'api']);
    processes.push(api);
    const grant = (password: string) => tokenStatus(api.url, 'system', { username: 'ops', password, project: 'admin', scope: 'admin' });
    const first = await grant(generated);
    assert.equal(first.status, 200);
    const token = String(first.body.access_token);

    const reset = await cli(['operator', 'reset-password', 'ops', '--password-stdin'], env, 'new-operator-password\n');
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal((await grant(generated)).status, 401);
    assert.equal((await grant('new-operator-password')).status, 200);
    // The old token names a password stamp that no longer holds (revocation within 10 s).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await fetch(`${api.url}/rest/tenants`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      if (res.status === 401) break;
      assert.ok(Date.now() < deadline, 'the old token still works');
      await new Promise((r) => setTimeout(r, 200));
    }
    const missing = await cli(['operator', 'reset-password', 'nobody', '--password-stdin'], env, 'new-operator-password\n');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /operator nobody not found/);
  });
});
