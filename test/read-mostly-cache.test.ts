import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { createNotifier, openDb, ReadMostlyCache, repoFiles, type RepoFileRow } from '../src/store/index.js';
import { READ_MOSTLY_CHANGED, READ_MOSTLY_MS } from '../src/store/read-mostly-cache.js';
import { pdfText } from './helpers/pdf.js';
import { putFile, setupProject, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';
const grid = '<data><item id="C-1"><title>Cached</title></item></data>';

// Every ticket reads its project's row, the step configurations, its template and the job's view
// of the repository; those answers are remembered until a repository file or a project changes
// (src/store/read-mostly-cache.ts).
describeEachStore('projects and repository answers remembered between changes', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    // Tokens trusted for 10 s, so that a request for a deleted project gets past them to intake.
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, tokenRecheckMs: 10_000 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  const renderText = async (query = '') => {
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/renderpdf?timeToWait=60000${query}`, {
      method: 'POST',
      token: tokens.jobs,
      headers: { accept: 'application/pdf', 'content-type': 'application/xml' },
      body: grid,
    });
    assert.equal(res.status, 200, await res.clone().text());
    return (await pdfText(Buffer.from(await res.arrayBuffer()))).join('\n');
  };

  it('renders with a template or configuration changed through the API from the very next request on', async () => {
    await putFile(t, tokens.admin, `${P}/master-documents/versioned.typ`, 'VERSION-ONE\n');
    assert.match(await renderText('&documentTemplate=versioned'), /VERSION-ONE/);
    await putFile(t, tokens.admin, `${P}/master-documents/versioned.typ`, 'VERSION-TWO\n');
    assert.match(await renderText('&documentTemplate=versioned'), /VERSION-TWO/);
    await putFile(t, tokens.admin, `${P}/master-documents/other.typ`, 'THE-OTHER-ONE\n');
    await putFile(t, tokens.admin, `${P}/restapi/config.ion`, '{ documentTemplate: "other" }');
    assert.match(await renderText(), /THE-OTHER-ONE/);
    const removed = await t.fetch(`/rest/repository/files/${P}/restapi/config.ion`, { method: 'DELETE', token: tokens.admin });
    assert.ok(removed.status < 300, `delete answered ${removed.status}`);
    assert.doesNotMatch(await renderText(), /THE-OTHER-ONE/, 'the default template again once the configuration is gone');
  });

  it('refuses tickets for a project from the moment it is deleted and takes them once it exists again, with its retention rule', async () => {
    await t.fetch('/rest/tenants/acme/projects?name=brief&keepUntil=shipped', { method: 'POST', token: tokens.op });
    const jobs = await t.token('acme', 'brief', 'jobs');
    const submitTo = () =>
      t.fetch('/rest/tenants/acme/projects/brief/renderpdf', { method: 'POST', token: jobs, headers: { 'content-type': 'application/xml' }, body: grid });
    const first = await submitTo();
    assert.equal(first.status, 202, await first.clone().text());
    const id = ((await first.json()) as { tickets: { id: string }[] }).tickets[0]!.id;
    const done = await waitComplete(t, jobs, id, 60_000, 'acme', 'brief');
    assert.equal(done.status, 'renderpdf.succeeded', JSON.stringify(done));
    const stored = await t.server.ctx.db.kysely.selectFrom('artifacts').select(['name', 'keep_rule']).where('ticket', '=', id).execute();
    assert.ok(stored.length > 0 && stored.every((a) => a.keep_rule === 'shipped'), `the project's keepUntil rule: ${JSON.stringify(stored)}`);

    const deleted = await t.fetch('/rest/tenants/acme/projects/brief', { method: 'DELETE', token: tokens.op });
    assert.equal(deleted.status, 200, await deleted.text());
    const after = await submitTo();
    assert.equal(after.status, 404, await after.clone().text());
    assert.match(((await after.json()) as { message: string }).message, /project acme\/brief/);

    // Created again: accepted at once (the token is still trusted, see tokenRecheckMs above).
    const again = await t.fetch('/rest/tenants/acme/projects?name=brief', { method: 'POST', token: tokens.op });
    assert.equal(again.status, 200, await again.text());
    const accepted = await submitTo();
    assert.equal(accepted.status, 202, await accepted.text());
  });

  it('answers from memory until a change is announced or the time bound passes, and never keeps an answer read across a change', async () => {
    const db = t.server.ctx.db.kysely;
    let clock = 1_800_000_000_000;
    const cache = new ReadMostlyCache(db, t.server.ctx.notifier, () => clock);
    try {
      const path = `${P}/master-documents/remembered.typ`;
      const put = (sha: string) => repoFiles.putRepoFile(db, { path, size: 1, sha256: sha, blob_key: `blob-${sha}`, created: 1, updated: 1 });
      const seen = async () => (await cache.findRepoFiles([path])).map((r: RepoFileRow) => r.sha256);

      await put('a');
      assert.deepEqual(await seen(), ['a']);
      await put('b'); // behind the cache's back: no announcement
      assert.deepEqual(await seen(), ['a'], 'remembered');
      clock += READ_MOSTLY_MS;
      assert.deepEqual(await seen(), ['b'], 'read again once the time bound passed');

      await put('c');
      await t.server.ctx.notifier.publish(READ_MOSTLY_CHANGED);
      assert.deepEqual(await seen(), ['c'], 'read again after the announcement');

      // A read under way while a change is announced is answered, but not remembered.
      clock += READ_MOSTLY_MS; // so that the read goes to the database
      const during = cache.findRepoFiles([path]);
      await cache.changed();
      await during;
      await put('d');
      assert.deepEqual(await seen(), ['d']);
    } finally {
      cache.close();
    }
  });

  if (kind === 'sqlite') {
    it('sees a commit of another process on the same SQLite file at once', async () => {
      // Another connection to the file, as an API or CLI process beside this one would have.
      const other = new SQLite(join(t.settings.dataDir, 'pressroom.db'));
      const cache = new ReadMostlyCache(t.server.ctx.db.kysely, t.server.ctx.notifier, () => 1_800_000_000_000, t.server.ctx.db.othersCommitted);
      try {
        const path = `${P}/master-documents/beside.typ`;
        const put = (sha: string) => repoFiles.putRepoFile(t.server.ctx.db.kysely, { path, size: 1, sha256: sha, blob_key: `blob-${sha}`, created: 1, updated: 1 });
        const seen = async () => (await cache.findRepoFiles([path])).map((r: RepoFileRow) => r.sha256);
        await put('mine');
        assert.deepEqual(await seen(), ['mine']);
        await put('mine-again'); // this process, unannounced: remembered
        assert.deepEqual(await seen(), ['mine']);
        other.prepare('update repo_files set sha256 = ? where path = ?').run('theirs', path);
        assert.deepEqual(await seen(), ['theirs'], 'read again after the other connection committed');
      } finally {
        cache.close();
        other.close();
      }
    });
  }

  if (kind === 'postgres') {
    it("hears another process's change through PostgreSQL at once", async () => {
      // A second connection and notifier on the same database: another process, as far as
      // PostgreSQL is concerned. Its clock stands still, so only the announcement can refresh it.
      const otherDb = openDb(t.settings);
      const otherNotifier = await createNotifier(otherDb, pino({ level: 'silent' }), t.settings.databaseSchema);
      const other = new ReadMostlyCache(otherDb.kysely, otherNotifier, () => 1_800_000_000_000);
      try {
        const path = `${P}/master-documents/elsewhere.typ`;
        const put = (sha: string) => repoFiles.putRepoFile(t.server.ctx.db.kysely, { path, size: 1, sha256: sha, blob_key: `blob-${sha}`, created: 1, updated: 1 });
        const seen = async () => (await other.findFirstRepoFile([path]))?.sha256;
        await put('one');
        assert.equal(await seen(), 'one');
        await put('two');
        assert.equal(await seen(), 'one', 'remembered');
        await t.server.ctx.readMostly.changed();
        const deadline = Date.now() + 30_000;
        while ((await seen()) !== 'two') {
          assert.ok(Date.now() < deadline, 'the other process never heard of the change');
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        other.close();
        await otherNotifier.close();
        await otherDb.close();
      }
    });
  }
});
