import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import pino from 'pino';
import { addUser } from '../src/auth/index.js';
import { loadSettings, type Settings } from '../src/config/settings.js';
import { startServer } from '../src/server.js';
import { users } from '../src/store/index.js';
import { cli, storeEnv, tokenStatus, type Run } from './helpers/cli.js';
import { freshSettings, startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const PW = 'shopper-password-1';

describeEachStore('users CLI', (kind) => {
  let t: TestServer;
  let env: Record<string, string>;
  before(async () => {
    t = await startTestServer(kind);
    env = storeEnv(t.settings);
    const op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=web']) {
      const res = await t.fetch(path, { method: 'POST', token: op });
      assert.equal(res.status, 200, await res.text());
    }
  });
  after(() => t.close());

  const grant = (user: string, project: string, scope: string, password = PW) => tokenStatus(t.url, 'acme', { username: user, password, project, scope });

  it('users add creates a jobs user whose password gets jobs tokens only, stored as scrypt', async () => {
    const run = await cli(['users', 'add', 'shopper', '--tenant', 'acme', '--project', 'shop', '--scope', 'jobs', '--password-stdin'], env, PW + '\n');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'added user shopper (tenant acme, project shop, scope jobs)\n');

    const jobs = await grant('shopper', 'shop', 'jobs');
    assert.equal(jobs.status, 200);
    assert.equal(jobs.body.scope, 'jobs');
    const admin = await grant('shopper', 'shop', 'admin');
    assert.equal(admin.status, 400);
    assert.equal(admin.body.error, 'invalid_scope');
    assert.equal((await grant('shopper', 'web', 'jobs')).status, 401);
    assert.equal((await grant('shopper', 'shop', 'jobs', PW + '\n')).status, 401, 'the trailing newline of stdin is not part of the password');

    const row = await users.findUser(t.server.ctx.db.kysely, 'acme', 'shopper');
    assert.ok(row);
    assert.match(row.password_hash, /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.ok(!row.password_hash.includes(PW));
    const operatorRow = await users.findUser(t.server.ctx.db.kysely, '', 'admin');
    assert.match(operatorRow!.password_hash, /^scrypt\$/);
  });

  it('users add with scope admin grants admin and jobs tokens', async () => {
    const run = await cli(['users', 'add', 'boss', '--tenant', 'acme', '--project', 'web', '--scope', 'admin', '--password-stdin'], env, PW);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((await grant('boss', 'web', 'admin')).status, 200);
    assert.equal((await grant('boss', 'web', 'jobs')).status, 200);
    assert.equal((await grant('boss', 'shop', 'admin')).status, 401);
  });

  it('users add refuses unknown tenants or projects, duplicates and short passwords with exit 1', async () => {
    const cases: [string[], RegExp][] = [
      [['--tenant', 'nope', '--project', 'shop'], /tenant nope with project shop not found/],
      [['--tenant', 'acme', '--project', 'nope'], /tenant acme with project nope not found/],
    ];
    for (const [where, message] of cases) {
      const run = await cli(['users', 'add', 'someone', ...where, '--scope', 'jobs', '--password-stdin'], env, PW);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    }
    const dup = await cli(['users', 'add', 'shopper', '--tenant', 'acme', '--project', 'web', '--scope', 'jobs', '--password-stdin'], env, 'another-password');
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /exists/);
    const short = await cli(['users', 'add', 'shorty', '--tenant', 'acme', '--project', 'shop', '--scope', 'jobs', '--password-stdin'], env, 'eleven-char');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);
    assert.equal(await users.findUser(t.server.ctx.db.kysely, 'acme', 'someone'), undefined);
    assert.equal(await users.findUser(t.server.ctx.db.kysely, 'acme', 'shorty'), undefined);
  });

  it('users list shows users, never password hashes', async () => {
    const run = await cli(['users', 'list'], env);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.ok(lines.some((l) => l.startsWith('(operator)\tadmin\tadmin\t')), run.stdout);
    assert.ok(lines.some((l) => l.startsWith('acme/shop\tshopper\tjobs\t')), run.stdout);
    assert.ok(lines.some((l) => l.startsWith('acme/web\tboss\tadmin\t')), run.stdout);
    assert.doesNotMatch(run.stdout, /scrypt|\$/);

    const json = await cli(['users', 'list', '--tenant', 'acme', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const list = JSON.parse(json.stdout) as Record<string, unknown>[];
    assert.deepEqual(list.map((u) => u.name).sort(), ['boss', 'shopper']);
    for (const u of list) assert.deepEqual(Object.keys(u).sort(), ['created', 'name', 'operator', 'project', 'scope', 'tenant']);
    assert.doesNotMatch(json.stdout, /scrypt/);
  });

  it('users remove deletes the user; its password is refused afterwards', async () => {
    assert.equal((await grant('shopper', 'shop', 'jobs')).status, 200);
    const run = await cli(['users', 'remove', 'shopper', '--tenant', 'acme'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'removed user shopper\n');
    const refused = await grant('shopper', 'shop', 'jobs');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error, 'invalid_grant');
    const again = await cli(['users', 'remove', 'shopper', '--tenant', 'acme'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /user shopper not found in tenant acme/);
    // Without --tenant only operators are meant: a tenant user is not found that way.
    const operatorOnly = await cli(['users', 'remove', 'boss'], env);
    assert.equal(operatorOnly.code, 1);
    assert.equal((await grant('boss', 'web', 'admin')).status, 200);
  });
});

describe('CLI arguments', () => {
  // A data folder that must stay absent: bad arguments are refused before the store is opened.
  const env = { PRESSROOM_DATA: join(tmpdir(), `pressroom-cli-never-created-${process.pid}`) };

  it('exits 2 with the usage for bad arguments, before opening the store', async () => {
    const bad = [
      ['users', 'add'],
      ['users', 'add', 'x', '--tenant', 'acme'],
      ['users', 'add', 'x', 'y', '--tenant', 'acme', '--project', 'shop', '--scope', 'jobs'],
      ['users', 'add', 'x', '--tenant', 'acme', '--project', 'shop', '--scope', 'root'],
      ['users', 'add', 'x', '--tenant', 'acme', '--project', 'shop', '--scope', 'jobs', '--bogus'],
      ['users', 'add', 'x', '--tenant'],
      ['users', 'remove'],
      ['users', 'frobnicate'],
      ['users'],
      ['frobnicate'],
      [],
      ['serve', '--role', 'boss'],
      ['serve', '--bogus'],
    ];
    const runs: Run[] = [];
    for (let i = 0; i < bad.length; i += 4) runs.push(...(await Promise.all(bad.slice(i, i + 4).map((args) => cli(args, env)))));
    runs.forEach((run, i) => {
      assert.equal(run.code, 2, `${bad[i]!.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /usage: pressroom/, bad[i]!.join(' '));
    });
    await assert.rejects(stat(env.PRESSROOM_DATA), { code: 'ENOENT' });
  });

  it('help prints the usage on stdout with exit 0', async () => {
    const run = await cli(['--help'], env);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /usage: pressroom <command>/);
    assert.match(run.stdout, /users add <name> --tenant T --project P --scope jobs\|admin/);
  });
});

describeEachStore('operator bootstrap', (kind) => {
  // Each test drops its store when done, so at most one test schema exists at a time.
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups) await c();
    cleanups = [];
  });

  /** Settings without PRESSROOM_ADMIN_PASSWORD, on a data folder that does not exist yet. */
  const bootstrapSettings = async () => {
    const fresh = await freshSettings(kind);
    cleanups.push(fresh.cleanup);
    const env: Record<string, string> = { ...fresh.env, PRESSROOM_DATA: join(fresh.settings.dataDir, 'not', 'yet') };
    delete env.PRESSROOM_ADMIN_PASSWORD;
    return { settings: loadSettings(env), env };
  };

  /** Starts the embedded service with its log lines captured: `printed` holds their messages. */
  const start = async (settings: Settings) => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const server = await startServer(settings, { logger });
    const printed = () => lines.map((l) => (JSON.parse(l) as { msg: string }).msg).filter((m) => m.includes('operator'));
    return { server, printed, lines };
  };
  const operatorGrant = (url: string, password: string) => tokenStatus(url, 'system', { username: 'admin', password, project: 'admin', scope: 'admin' });

  it('writes a random password to <data>/initial-admin-password (0600) once; it works and stays', async () => {
    const { settings } = await bootstrapSettings();
    const file = join(settings.dataDir, 'initial-admin-password');

    const first = await start(settings);
    let password: string;
    let mtime: number;
    try {
      const content = await readFile(file, 'utf8');
      assert.match(content, /^[A-Za-z0-9_-]{24}\n$/);
      password = content.trim();
      const info = await stat(file);
      assert.equal(info.mode & 0o777, 0o600);
      mtime = info.mtimeMs;
      // The log names the file, never the password.
      assert.equal(first.printed().length, 1);
      assert.ok(first.printed()[0]!.includes(file), first.printed()[0]);
      assert.ok(!first.lines.some((l) => l.includes(password)), 'no log line holds the password');
      const ok = await operatorGrant(first.server.url!, password);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.scope, 'admin');
      assert.equal((await operatorGrant(first.server.url!, 'wrong-password')).status, 401);
      const row = await users.findUser(first.server.ctx.db.kysely, '', 'admin');
      assert.match(row!.password_hash, /^scrypt\$/);
    } finally {
      await first.server.stop();
    }

    const second = await start(settings);
    try {
      assert.deepEqual(second.printed(), []);
      assert.equal(await readFile(file, 'utf8'), password + '\n');
      assert.equal((await stat(file)).mtimeMs, mtime);
      assert.equal((await operatorGrant(second.server.url!, password)).status, 200);
    } finally {
      await second.server.stop();
    }
  });

  it('creates a new operator password after `users remove admin` (lost-password recovery)', async () => {
    const { settings, env } = await bootstrapSettings();
    const file = join(settings.dataDir, 'initial-admin-password');
    const first = await start(settings);
    const old = (await readFile(file, 'utf8')).trim();
    try {
      // Tenant users stay: the operator is recreated although the users table is not empty.
      const op = await operatorGrant(first.server.url!, old);
      for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop']) {
        const res = await fetch(first.server.url + path, { method: 'POST', headers: { authorization: `Bearer ${String(op.body.access_token)}`, accept: 'application/json' } });
        assert.equal(res.status, 200);
      }
      await addUser(first.server.ctx.db, { name: 'shopper', tenant: 'acme', project: 'shop', scope: 'jobs', password: PW });
    } finally {
      await first.server.stop();
    }

    const removed = await cli(['users', 'remove', 'admin'], env);
    assert.equal(removed.code, 0, removed.stderr);

    const second = await start(settings);
    try {
      const fresh = (await readFile(file, 'utf8')).trim();
      assert.notEqual(fresh, old);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(second.printed().length, 1);
      assert.ok(!second.lines.some((l) => l.includes(fresh)), 'no log line holds the password');
      assert.equal((await operatorGrant(second.server.url!, fresh)).status, 200);
      assert.equal((await operatorGrant(second.server.url!, old)).status, 401);
      assert.equal((await tokenStatus(second.server.url!, 'acme', { username: 'shopper', password: PW, project: 'shop', scope: 'jobs' })).status, 200);
    } finally {
      await second.server.stop();
    }
  });

  it('with PRESSROOM_ADMIN_PASSWORD writes no file and logs no password', async () => {
    const { settings } = await bootstrapSettings();
    const configured: Settings = { ...settings, adminPassword: 'configured-password' };
    const s = await start(configured);
    try {
      assert.deepEqual(s.printed(), ['created operator "admin" with the password from PRESSROOM_ADMIN_PASSWORD']);
      assert.ok(!s.lines.some((l) => l.includes('configured-password')), 'no log line holds the password');
      await assert.rejects(stat(join(settings.dataDir, 'initial-admin-password')), { code: 'ENOENT' });
      assert.equal((await operatorGrant(s.server.url!, 'configured-password')).status, 200);
    } finally {
      await s.server.stop();
    }
  });
});
