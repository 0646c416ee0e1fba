import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { addUser } from '../src/auth/index.js';
import { repoFiles, tickets } from '../src/store/index.js';
import { submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const PW = 'tenant-user-pw';

describeEachStore('tenants and projects', (kind) => {
  let t: TestServer;
  let op: string;
  before(async () => {
    // Outputs as blobs (PRESSROOM_INLINE_FILE_MAX_BYTES=0), so that deleting a tenant or project is seen to remove them.
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, inlineFileMaxBytes: 0 });
    op = await t.operatorToken();
  });
  after(() => t.close());

  const call = async (method: string, path: string, token = op, headers: Record<string, string> = {}) => {
    const res = await t.fetch(path, { method, token, headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined, text };
  };
  const ok = async (method: string, path: string) => {
    const r = await call(method, path);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const tenantNames = async (query = '') => ((await ok('GET', `/rest/tenants${query}`)) as { name: string }[]).map((x) => x.name);

  /** Puts a repository file the way the repository module stores it: content-addressed blob + index row. */
  const putRepoFile = async (path: string, content: string) => {
    const data = Buffer.from(content);
    const sha = createHash('sha256').update(data).digest('hex');
    const key = `repo/${sha}`;
    await t.server.ctx.blobs.put(key, data);
    const now = Date.now();
    await repoFiles.putRepoFile(t.server.ctx.db.kysely, { path, size: data.length, sha256: sha, blob_key: key, created: now, updated: now });
    return key;
  };
  /** Renders a small PDF in a project and returns the ticket id once it is complete, with its blob keys. */
  const renderTicket = async (tenant: string, project: string) => {
    const jobs = await t.token(tenant, project, 'jobs');
    const [id] = await submit(t, jobs, '<data><item id="1"><title>Kettle</title></item></data>', { tenant, project });
    const status = await waitComplete(t, jobs, id!, 30_000, tenant, project);
    assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
    const artifacts = await tickets.listArtifacts(t.server.ctx.db.kysely, id!);
    assert.ok(artifacts.length > 0);
    const blobbed = artifacts.filter((a) => !a.data);
    assert.ok(blobbed.some((a) => a.kind === 'output'));
    for (const a of blobbed) assert.ok(await t.server.ctx.blobs.get(a.blob_key), a.name);
    return { id: id!, keys: blobbed.map((a) => a.blob_key) };
  };
  const assertTicketGone = async (ticket: { id: string; keys: string[] }) => {
    assert.equal(await tickets.findTicket(t.server.ctx.db.kysely, ticket.id), undefined);
    assert.deepEqual(await tickets.listArtifacts(t.server.ctx.db.kysely, ticket.id), []);
    for (const key of ticket.keys) assert.equal(await t.server.ctx.blobs.get(key), undefined, key);
  };
  const tokenStatus = async (tenant: string, project: string, user: string, scope = 'jobs') => {
    const res = await fetch(`${t.url}/auth/${tenant}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ username: user, password: PW, project, scope }).toString(),
    });
    return res.status;
  };

  it('creates, reads and lists tenants; 404 for unknown, 409 for duplicates', async () => {
    const created = (await ok('POST', '/rest/tenants?name=acme')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(created).sort(), ['created', 'name', 'projects', 'updated']);
    assert.equal(created.name, 'acme');
    assert.equal(created.projects, 0);
    assert.ok(!Number.isNaN(Date.parse(created.created as string)));

    assert.deepEqual(await ok('GET', '/rest/tenants/acme'), created);
    assert.ok((await tenantNames()).includes('acme'));

    const missing = await call('GET', '/rest/tenants/nobody');
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { code: string }).code, 'not_found');

    const dup = await call('POST', '/rest/tenants?name=acme');
    assert.equal(dup.status, 409);
    assert.equal((dup.body as { code: string }).code, 'conflict');
  });

  it('refuses the reserved tenant "system" and invalid names with 400, creating nothing', async () => {
    const before = await tenantNames();
    for (const name of ['system', 'System', 'a b', '-lead', '_lead', 'a.b', 'a/b', 'ümlaut', 'x'.repeat(65), '']) {
      const r = await call('POST', `/rest/tenants?name=${encodeURIComponent(name)}`);
      assert.equal(r.status, 400, `tenant name ${JSON.stringify(name)}: ${r.text}`);
      const body = r.body as { code: string; details: { field?: string }[] };
      assert.equal(body.code, 'bad_request');
      assert.ok(body.details.length > 0);
    }
    const missing = await call('POST', '/rest/tenants');
    assert.equal(missing.status, 400);
    assert.equal((missing.body as { details: { field?: string }[] }).details[0]?.field, 'name');
    assert.deepEqual(await tenantNames(), before);
    // The longest valid name is fine.
    await ok('POST', `/rest/tenants?name=${'x'.repeat(64)}`);
    await ok('DELETE', `/rest/tenants/${'x'.repeat(64)}`);
  });

  it('filters tenants and projects by glob or regular expression', async () => {
    for (const name of ['pat-alpha', 'pat-alpine', 'pat-beta', 'patxgamma']) await ok('POST', `/rest/tenants?name=${name}`);
    const q = (pattern: string) => `?pattern=${encodeURIComponent(pattern)}`;
    assert.deepEqual(await tenantNames(q('pat-alp*')), ['pat-alpha', 'pat-alpine']);
    assert.deepEqual(await tenantNames(q('pat-?eta')), ['pat-beta']);
    // A glob matches whole names, and its `.` is a literal dot.
    assert.deepEqual(await tenantNames(q('alp*')), []);
    assert.deepEqual(await tenantNames(q('pat.beta')), []);
    // A regex when it starts with ^ or ends with $; unanchored ends are open.
    assert.deepEqual(await tenantNames(q('^pat-al')), ['pat-alpha', 'pat-alpine']);
    assert.deepEqual(await tenantNames(q('(beta|gamma)$')), ['pat-beta', 'patxgamma']);
    assert.deepEqual(await tenantNames(q('^pat.beta$')), ['pat-beta']);

    for (const bad of ['^(unclosed', '^[z-a]$', '^a**$']) {
      const r = await call('GET', `/rest/tenants${q(bad)}`);
      assert.equal(r.status, 400, bad);
      assert.equal((r.body as { code: string }).code, 'invalid_pattern');
    }
    assert.equal((await call('GET', `/rest/tenants${q('^' + 'a'.repeat(300))}`)).status, 400);

    await ok('POST', '/rest/tenants/pat-alpha/projects?name=shop');
    await ok('POST', '/rest/tenants/pat-alpha/projects?name=shipping');
    await ok('POST', '/rest/tenants/pat-alpha/projects?name=web');
    const projects = async (pattern: string) =>
      ((await ok('GET', `/rest/tenants/pat-alpha/projects${q(pattern)}`)) as { name: string }[]).map((p) => p.name);
    assert.deepEqual(await projects('sh*'), ['shipping', 'shop']);
    assert.deepEqual(await projects('^w'), ['web']);
    assert.equal((await call('GET', `/rest/tenants/pat-alpha/projects${q('^(')}`)).status, 400);
  });

  it('answers a catastrophic-looking regex at once (RE2, no backtracking)', async () => {
    // A backtracking engine needs about 2^40 steps for ^(a+)+$ against this name.
    const evil = 'a'.repeat(40) + '-x';
    await ok('POST', `/rest/tenants?name=${evil}`);
    const path = `/rest/tenants?pattern=${encodeURIComponent('^(a+)+$')}`;
    await call('GET', path); // warm-up: compile paths, connection
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const r = await call('GET', path);
      best = Math.min(best, performance.now() - started);
      assert.equal(r.status, 200);
      assert.ok(!(r.body as { name: string }[]).some((x) => x.name === evil));
    }
    // 2^40 backtracking steps would take hours; 2 s leaves room for a loaded machine.
    assert.ok(best < 2000, `took ${best.toFixed(1)} ms`);
    await ok('DELETE', `/rest/tenants/${evil}`);
  });

  it('creates projects with keepUntil and expires; 400 for bad values, 404 and 409', async () => {
    await ok('POST', '/rest/tenants?name=proj-t');
    const full = (await ok('POST', '/rest/tenants/proj-t/projects?name=shop&keepUntil=shippedOrExpired&expires=2030-01-31T12:00:00Z')) as Record<string, unknown>;
    assert.deepEqual(full.tenant, 'proj-t');
    assert.deepEqual(Object.keys(full).sort(), ['created', 'expires', 'keepUntil', 'name', 'tenant', 'updated']);
    assert.equal(full.keepUntil, 'shippedOrExpired');
    assert.equal(full.expires, '2030-01-31T12:00:00.000Z');

    for (const keep of ['shipped', 'expired', 'forever']) {
      const p = (await ok('POST', `/rest/tenants/proj-t/projects?name=keep-${keep}&keepUntil=${keep}`)) as Record<string, unknown>;
      assert.equal(p.keepUntil, keep);
      assert.equal(p.expires, null);
    }
    const plain = (await ok('POST', '/rest/tenants/proj-t/projects?name=plain')) as Record<string, unknown>;
    assert.equal(plain.keepUntil, null);
    assert.equal(plain.expires, null);
    // An offset is kept as the same instant.
    const offset = (await ok('POST', `/rest/tenants/proj-t/projects?name=offset&expires=${encodeURIComponent('2030-01-01T10:00:00+02:00')}`)) as Record<string, unknown>;
    assert.equal(offset.expires, '2030-01-01T08:00:00.000Z');

    assert.deepEqual(await ok('GET', '/rest/tenants/proj-t/projects/shop'), full);
    const list = (await ok('GET', '/rest/tenants/proj-t/projects')) as { name: string }[];
    assert.deepEqual(list.map((p) => p.name), ['keep-expired', 'keep-forever', 'keep-shipped', 'offset', 'plain', 'shop']);
    assert.equal(((await ok('GET', '/rest/tenants/proj-t')) as { projects: number }).projects, 6);

    const bad: [string, string][] = [
      ['name=b1&keepUntil=never', 'keepUntil'],
      ['name=b2&keepUntil=SHIPPED', 'keepUntil'],
      ['name=b3&expires=tomorrow', 'expires'],
      ['name=b4&expires=2030-13-01T00:00:00Z', 'expires'],
      ['name=b5&expires=2030-02-30T00:00:00Z', 'expires'],
      ['name=b6&expires=2030-01-01', 'expires'],
      ['name=has%20space', 'name'],
      ['keepUntil=forever', 'name'],
    ];
    for (const [query, field] of bad) {
      const r = await call('POST', `/rest/tenants/proj-t/projects?${query}`);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      const body = r.body as { code: string; details: { field?: string; message: string }[] };
      assert.equal(body.code, 'bad_request');
      assert.ok(body.details.some((d) => d.field === field), `${query}: ${r.text}`);
    }
    // The enum error names the allowed values, once (not one message per literal).
    const enumError = await call('POST', '/rest/tenants/proj-t/projects?name=b7&keepUntil=never');
    const enumBody = enumError.body as { message: string; details: unknown[] };
    assert.equal(enumBody.details.length, 1);
    assert.equal(enumBody.message, 'querystring keepUntil must be one of shipped, expired, shippedOrExpired, forever');
    assert.equal(((await ok('GET', '/rest/tenants/proj-t')) as { projects: number }).projects, 6);

    assert.equal((await call('POST', '/rest/tenants/proj-t/projects?name=shop')).status, 409);
    assert.equal((await call('POST', '/rest/tenants/nobody/projects?name=shop')).status, 404);
    assert.equal((await call('GET', '/rest/tenants/nobody/projects')).status, 404);
    assert.equal((await call('GET', '/rest/tenants/proj-t/projects/nothing')).status, 404);
    assert.equal((await call('GET', '/rest/tenants/nobody/projects/shop')).status, 404);
    assert.equal((await call('DELETE', '/rest/tenants/proj-t/projects/nothing')).status, 404);
    assert.equal((await call('DELETE', '/rest/tenants/nobody')).status, 404);

    // The same project name may exist in another tenant.
    await ok('POST', '/rest/tenants?name=proj-u');
    await ok('POST', '/rest/tenants/proj-u/projects?name=shop');
  });

  it('refuses every endpoint to non-operator tokens with 403 and changes nothing', async () => {
    await ok('POST', '/rest/tenants?name=guarded');
    await ok('POST', '/rest/tenants/guarded/projects?name=shop');
    const { db } = t.server.ctx;
    await addUser(db, { name: 'boss', tenant: 'guarded', project: 'shop', scope: 'admin', password: PW });
    await addUser(db, { name: 'worker', tenant: 'guarded', project: 'shop', scope: 'jobs', password: PW });
    const tokens = {
      tenantAdmin: await t.token('guarded', 'shop', 'admin', 'boss', PW),
      jobs: await t.token('guarded', 'shop', 'jobs', 'worker', PW),
      // The operator's own token for a tenant project is a tenant token, not an operator token.
      operatorOnProject: await t.token('guarded', 'shop', 'admin'),
      operatorJobs: await t.token('system', 'admin', 'jobs'),
    };
    const before = await ok('GET', '/rest/tenants');
    const requests: [string, string][] = [
      ['GET', '/rest/tenants'],
      ['POST', '/rest/tenants?name=intruder'],
      ['POST', '/rest/tenants'], // invalid input too: 403 comes first
      ['GET', '/rest/tenants/guarded'],
      ['DELETE', '/rest/tenants/guarded'],
      ['GET', '/rest/tenants/guarded/projects'],
      ['POST', '/rest/tenants/guarded/projects?name=intruder'],
      ['POST', '/rest/tenants/guarded/projects?name=x&keepUntil=bogus'],
      ['GET', '/rest/tenants/guarded/projects/shop'],
      ['DELETE', '/rest/tenants/guarded/projects/shop'],
    ];
    for (const [name, token] of Object.entries(tokens)) {
      for (const [method, path] of requests) {
        const r = await call(method, path, token);
        assert.equal(r.status, 403, `${name} ${method} ${path}: ${r.text}`);
        assert.equal((r.body as { code: string }).code, 'forbidden');
      }
    }
    for (const [method, path] of requests) {
      const r = await t.fetch(path, { method });
      assert.equal(r.status, 401, `no token ${method} ${path}`);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    }
    assert.deepEqual(await ok('GET', '/rest/tenants'), before);
    assert.equal(((await ok('GET', '/rest/tenants/guarded')) as { projects: number }).projects, 1);
    assert.equal(await tokenStatus('guarded', 'shop', 'worker'), 200);
  });

  it('deleting a project removes its users, tickets and repository files, not its siblings', async () => {
    await ok('POST', '/rest/tenants?name=pdel');
    await ok('POST', '/rest/tenants/pdel/projects?name=gone');
    await ok('POST', '/rest/tenants/pdel/projects?name=kept');
    const { db, blobs } = t.server.ctx;
    await addUser(db, { name: 'u-gone', tenant: 'pdel', project: 'gone', scope: 'jobs', password: PW });
    await addUser(db, { name: 'u-kept', tenant: 'pdel', project: 'kept', scope: 'jobs', password: PW });
    const onlyHere = await putRepoFile('tenants/pdel/projects/gone/restapi/config.ion', '{ keepInputForSeconds: 3601 }');
    const shared = await putRepoFile('tenants/pdel/projects/gone/shared.txt', 'shared content');
    await putRepoFile('tenants/pdel/projects/kept/shared.txt', 'shared content');
    await putRepoFile('tenants/pdel/projects/gone-too-similar/x.txt', 'prefix must not match');
    await putRepoFile('tenants/pdel/restapi/config.ion', '{ keepInputForSeconds: 3602 }');
    assert.equal(await tokenStatus('pdel', 'gone', 'u-gone'), 200);
    const goneTicket = await renderTicket('pdel', 'gone');
    const keptTicket = await renderTicket('pdel', 'kept');

    assert.deepEqual(await ok('DELETE', '/rest/tenants/pdel/projects/gone'), { deleted: 'pdel/gone' });
    assert.equal((await call('GET', '/rest/tenants/pdel/projects/gone')).status, 404);
    assert.equal(await tokenStatus('pdel', 'gone', 'u-gone'), 401);
    assert.equal(await tokenStatus('pdel', 'kept', 'u-kept'), 200);
    const left = (await repoFiles.listRepoFiles(db.kysely, 'tenants/pdel/')).map((r) => r.path);
    assert.deepEqual(left, ['tenants/pdel/projects/gone-too-similar/x.txt', 'tenants/pdel/projects/kept/shared.txt', 'tenants/pdel/restapi/config.ion']);
    assert.equal(await blobs.get(onlyHere), undefined);
    assert.equal((await blobs.get(shared))?.toString(), 'shared content');
    await assertTicketGone(goneTicket);
    assert.ok(await tickets.findTicket(db.kysely, keptTicket.id));
    for (const key of keptTicket.keys) assert.ok(await blobs.get(key), key);

    // Recreated under the same name, the project starts empty.
    await ok('POST', '/rest/tenants/pdel/projects?name=gone');
    assert.equal(await tokenStatus('pdel', 'gone', 'u-gone'), 401);
  });

  it('deleting a tenant removes its projects, users, tickets, artifacts and repository files', async () => {
    await ok('POST', '/rest/tenants?name=doomed');
    await ok('POST', '/rest/tenants/doomed/projects?name=one');
    await ok('POST', '/rest/tenants/doomed/projects?name=two');
    await ok('POST', '/rest/tenants?name=bystander');
    await ok('POST', '/rest/tenants/bystander/projects?name=one');
    const { db, blobs } = t.server.ctx;
    await addUser(db, { name: 'alice', tenant: 'doomed', project: 'one', scope: 'admin', password: PW });
    await addUser(db, { name: 'bob', tenant: 'doomed', project: 'two', scope: 'jobs', password: PW });
    await addUser(db, { name: 'alice', tenant: 'bystander', project: 'one', scope: 'jobs', password: PW });
    const own = [
      await putRepoFile('tenants/doomed/restapi/config.ion', '{ keepInputForSeconds: 3603 }'),
      await putRepoFile('tenants/doomed/projects/one/restapi/config.ion', '{ keepInputForSeconds: 3604 }'),
      await putRepoFile('tenants/doomed/projects/two/master-documents/a.typ', '= doomed'),
    ];
    const shared = await putRepoFile('tenants/doomed/projects/two/logo.svg', '<svg/>');
    await putRepoFile('tenants/bystander/projects/one/logo.svg', '<svg/>');
    await putRepoFile('tenants/doomed-not/x.txt', 'a tenant whose name starts the same');
    const aliceToken = await t.token('doomed', 'one', 'admin', 'alice', PW);
    assert.equal(await tokenStatus('doomed', 'two', 'bob'), 200);
    const doomedTickets = [await renderTicket('doomed', 'one'), await renderTicket('doomed', 'two')];
    const bystanderTicket = await renderTicket('bystander', 'one');

    assert.deepEqual(await ok('DELETE', '/rest/tenants/doomed'), { deleted: 'doomed' });

    assert.equal((await call('GET', '/rest/tenants/doomed')).status, 404);
    assert.equal((await call('GET', '/rest/tenants/doomed/projects')).status, 404);
    assert.equal((await call('GET', '/rest/tenants/doomed/projects/one')).status, 404);
    assert.ok(!(await tenantNames()).includes('doomed'));
    assert.equal(await tokenStatus('doomed', 'one', 'alice', 'admin'), 401);
    assert.equal(await tokenStatus('doomed', 'two', 'bob'), 401);
    assert.equal(await tokenStatus('bystander', 'one', 'alice'), 200);
    // A token issued before is revoked with its tenant (test/token-revocation.test.ts has the details).
    assert.equal((await call('GET', '/rest/tenants', aliceToken)).status, 401);

    assert.deepEqual(await repoFiles.listRepoFiles(db.kysely, 'tenants/doomed/'), []);
    assert.equal((await repoFiles.listRepoFiles(db.kysely, 'tenants/doomed-not/')).length, 1);
    assert.equal((await repoFiles.listRepoFiles(db.kysely, 'tenants/bystander/')).length, 1);
    for (const key of own) assert.equal(await blobs.get(key), undefined, key);
    assert.equal((await blobs.get(shared))?.toString(), '<svg/>');
    for (const ticket of doomedTickets) await assertTicketGone(ticket);
    assert.ok(await tickets.findTicket(db.kysely, bystanderTicket.id));
    for (const key of bystanderTicket.keys) assert.ok(await blobs.get(key), key);

    assert.equal((await call('DELETE', '/rest/tenants/doomed')).status, 404);
    // Recreated, the tenant starts empty: no projects, no users.
    const again = (await ok('POST', '/rest/tenants?name=doomed')) as { projects: number };
    assert.equal(again.projects, 0);
    await ok('POST', '/rest/tenants/doomed/projects?name=one');
    assert.equal(await tokenStatus('doomed', 'one', 'alice'), 401);
  });

  it('answers 405 with Allow for other methods and 406 for a non-JSON Accept', async () => {
    const put = await call('PUT', '/rest/tenants/acme');
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, DELETE');
    const patch = await call('PATCH', '/rest/tenants');
    assert.equal(patch.status, 405);
    assert.equal(patch.headers.get('allow'), 'GET, POST');
    const xml = await call('GET', '/rest/tenants', op, { accept: 'application/xml' });
    assert.equal(xml.status, 406);
    assert.equal((xml.body as { code: string }).code, 'not_acceptable');
    // The most specific range decides: an explicit q=0 for JSON wins over a wildcard.
    assert.equal((await call('GET', '/rest/tenants', op, { accept: '*/*, application/json;q=0' })).status, 406);
    assert.equal((await call('GET', '/rest/tenants', op, { accept: 'application/*;q=0, application/json' })).status, 200);
    assert.equal((await call('GET', '/rest/tenants', op, { accept: 'text/html, application/*;q=0.2' })).status, 200);
    assert.equal((await call('GET', '/rest/tenants', op, { accept: 'APPLICATION/JSON; charset=utf-8' })).status, 200);
  });
});
