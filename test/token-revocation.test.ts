// Tokens are tied to what they were issued for: removing the user or giving it a new password,
// deleting the project or the tenant (even when created again under the same name) makes its
// tokens answer 401 within 10 s on every API process. Two API processes share one store; the
// injected clock moves the 10 s.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { addUser, bootstrapOperator, removeUser } from '../src/auth/index.js';
import { startServer, type Server } from '../src/server.js';
import { setupProject } from './helpers/project.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const PW = 'user-password-1';

/** Runs `pressroom <args>` on the store of `t`, with `input` on stdin. */
function cli(t: TestServer, args: string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', PRESSROOM_LOG_LEVEL: 'silent', PRESSROOM_DATA: t.settings.dataDir };
  if (t.settings.databaseUrl) Object.assign(env, { PRESSROOM_DATABASE_URL: t.settings.databaseUrl, PRESSROOM_DATABASE_SCHEMA: t.settings.databaseSchema });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describeEachStore('token revocation', (kind) => {
  let t: TestServer;
  /** A second API process on the same store. */
  let second: Server;
  let now = Date.now();
  const clock = () => now;

  before(async () => {
    t = await startTestServer(kind, { role: 'api' }, { now: clock });
    await setupProject(t);
    second = await startServer({ ...t.settings, role: 'api' }, { now: clock });
  });
  after(async () => {
    await second.stop();
    await t.close();
  });

  const get = (base: string, path: string, token: string) => fetch(base + path, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
  const tickets = (tenant = 'acme', project = 'shop') => `/rest/tenants/${tenant}/projects/${project}/tickets`;

  /** Asserts the token works on both processes (and so is in both caches). */
  async function works(token: string, path: string): Promise<void> {
    for (const base of [t.url, second.url!]) assert.equal((await get(base, path, token)).status, 200, `${base}${path}`);
  }

  /** Moves the clock 10 s and asserts the token answers 401 on both processes. */
  async function revokedWithin10s(token: string, path: string, what: string): Promise<void> {
    now += 10_000;
    for (const base of [t.url, second.url!]) {
      const res = await get(base, path, token);
      assert.equal(res.status, 401, `${what} (${base})`);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const body = (await res.json()) as { code: string; message: string };
      assert.equal(body.code, 'unauthorized');
      assert.match(body.message, /revoked/);
    }
  }

  it('revokes the tokens of a removed user, also when a user of that name is added again', async () => {
    await addUser(t.server.ctx.db, { name: 'leaver', tenant: 'acme', project: 'shop', scope: 'jobs', password: PW });
    const token = await t.token('acme', 'shop', 'jobs', 'leaver', PW);
    await works(token, tickets());
    await removeUser(t.server.ctx.db, 'leaver', 'acme');
    await revokedWithin10s(token, tickets(), 'token of a removed user');
    await addUser(t.server.ctx.db, { name: 'leaver', tenant: 'acme', project: 'shop', scope: 'jobs', password: PW });
    assert.equal((await get(t.url, tickets(), token)).status, 401, 'the same name and password again is another user');
    await works(await t.token('acme', 'shop', 'jobs', 'leaver', PW), tickets());
  });

  it('revokes the tokens of a user whose password `pressroom users passwd` changed', async () => {
    await addUser(t.server.ctx.db, { name: 'clerk', tenant: 'acme', project: 'shop', scope: 'admin', password: PW });
    const jobs = await t.token('acme', 'shop', 'jobs', 'clerk', PW);
    const admin = await t.token('acme', 'shop', 'admin', 'clerk', PW);
    await works(jobs, tickets());
    await works(admin, tickets());

    const wrongProject = await cli(t, ['users', 'passwd', 'clerk', '--tenant', 'acme', '--project', 'web', '--password-stdin'], 'new-password-2');
    assert.equal(wrongProject.code, 1);
    assert.match(wrongProject.stderr, /user clerk not found in tenant acme, project web/);
    const missing = await cli(t, ['users', 'passwd', 'clerk', '--password-stdin'], 'new-password-2');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /users passwd needs <name> and --tenant/);
    await works(jobs, tickets());

    const run = await cli(t, ['users', 'passwd', 'clerk', '--tenant', 'acme', '--project', 'shop', '--password-stdin'], 'new-password-2\n');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'changed the password of user clerk (tenant acme, project shop); its tokens no longer work\n');
    await revokedWithin10s(jobs, tickets(), 'jobs token issued before passwd');
    await revokedWithin10s(admin, tickets(), 'admin token issued before passwd');
    await assert.rejects(t.token('acme', 'shop', 'jobs', 'clerk', PW), /401/, 'the old password is refused');
    await works(await t.token('acme', 'shop', 'admin', 'clerk', 'new-password-2'), tickets());
  });

  it('revokes the tokens of a deleted project, also when it is created again; other projects keep theirs', async () => {
    const op = await t.operatorToken();
    await setupProject(t, 'acme', 'temp');
    await addUser(t.server.ctx.db, { name: 'temper', tenant: 'acme', project: 'temp', scope: 'jobs', password: PW });
    const user = await t.token('acme', 'temp', 'jobs', 'temper', PW);
    const operatorOnProject = await t.token('acme', 'temp', 'admin');
    const bystander = await t.token('acme', 'shop', 'jobs');
    for (const token of [user, operatorOnProject]) await works(token, tickets('acme', 'temp'));
    await works(bystander, tickets());

    assert.equal((await t.fetch('/rest/tenants/acme/projects/temp', { method: 'DELETE', token: op })).status, 200);
    assert.equal((await t.fetch('/rest/tenants/acme/projects?name=temp', { method: 'POST', token: op })).status, 200);
    await revokedWithin10s(user, tickets('acme', 'temp'), "a user's token of the deleted project");
    await revokedWithin10s(operatorOnProject, tickets('acme', 'temp'), "the operator's token of the deleted project");
    await works(bystander, tickets());
    await works(await t.token('acme', 'temp', 'admin'), tickets('acme', 'temp'));
  });

  it('refuses a token of a tenant that was deleted and created again under the same name', async () => {
    const op = await t.operatorToken();
    await setupProject(t, 'phoenix', 'shop');
    await addUser(t.server.ctx.db, { name: 'ash', tenant: 'phoenix', project: 'shop', scope: 'jobs', password: PW });
    const user = await t.token('phoenix', 'shop', 'jobs', 'ash', PW);
    const operatorOnTenant = await t.token('phoenix', 'shop', 'jobs');
    for (const token of [user, operatorOnTenant]) await works(token, tickets('phoenix'));

    assert.equal((await t.fetch('/rest/tenants/phoenix', { method: 'DELETE', token: op })).status, 200);
    await setupProject(t, 'phoenix', 'shop');
    await addUser(t.server.ctx.db, { name: 'ash', tenant: 'phoenix', project: 'shop', scope: 'jobs', password: PW });
    await revokedWithin10s(user, tickets('phoenix'), "a user's token of the old tenant");
    await revokedWithin10s(operatorOnTenant, tickets('phoenix'), "the operator's token of the old tenant");
    await works(await t.token('phoenix', 'shop', 'jobs', 'ash', PW), tickets('phoenix'));
  });

  it("revokes the operator's tokens when the operator is removed, also after it is created again", async () => {
    const op = await t.operatorToken();
    const operatorOnProject = await t.token('acme', 'shop', 'admin');
    await works(op, '/rest/tenants');
    await works(operatorOnProject, tickets());
    await removeUser(t.server.ctx.db, 'admin');
    await bootstrapOperator(t.server.ctx.db, { password: ADMIN_PASSWORD, dataDir: t.settings.dataDir, report: () => {} });
    await revokedWithin10s(op, '/rest/tenants', 'the operator token');
    await revokedWithin10s(operatorOnProject, tickets(), "the operator's project token");
    await works(await t.operatorToken(), '/rest/tenants');
  });
});
