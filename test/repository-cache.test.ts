import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pino from 'pino';
import { createNotifier, openDb, RepoFileCache, repoFiles, type RepoFileRow } from '../src/store/index.js';
import { REPOSITORY_CHANGED, REPO_CACHE_MS } from '../src/store/repo-file-cache.js';
import { pdfText } from './helpers/pdf.js';
import { putFile, setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';
const grid = '<data><item id="C-1"><title>Cached</title></item></data>';

// Every ticket reads the step configurations, its template and the job's view of the repository;
// those answers are remembered until the repository changes (src/store/repo-file-cache.ts).
describeEachStore('repository answers remembered between changes', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
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

  it('answers from memory until a change is announced or the time bound passes, and never keeps an answer read across a change', async () => {
    const db = t.server.ctx.db.kysely;
    let clock = 1_800_000_000_000;
    const cache = new RepoFileCache(db, t.server.ctx.notifier, () => clock);
    try {
      const path = `${P}/master-documents/remembered.typ`;
      const put = (sha: string) => repoFiles.putRepoFile(db, { path, size: 1, sha256: sha, blob_key: `blob-${sha}`, created: 1, updated: 1 });
      const seen = async () => (await cache.findRepoFiles([path])).map((r: RepoFileRow) => r.sha256);

      await put('a');
      assert.deepEqual(await seen(), ['a']);
      await put('b'); // behind the cache's back: no announcement
      assert.deepEqual(await seen(), ['a'], 'remembered');
      clock += REPO_CACHE_MS;
      assert.deepEqual(await seen(), ['b'], 'read again once the time bound passed');

      await put('c');
      await t.server.ctx.notifier.publish(REPOSITORY_CHANGED);
      assert.deepEqual(await seen(), ['c'], 'read again after the announcement');

      // A read under way while a change is announced is answered, but not remembered.
      clock += REPO_CACHE_MS; // so that the read goes to the database
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
      const cache = new RepoFileCache(t.server.ctx.db.kysely, t.server.ctx.notifier, () => 1_800_000_000_000, t.server.ctx.db.othersCommitted);
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
      const otherNotifier = await createNotifier(otherDb, pino({ level: 'silent' }));
      const other = new RepoFileCache(otherDb.kysely, otherNotifier, () => 1_800_000_000_000);
      try {
        const path = `${P}/master-documents/elsewhere.typ`;
        const put = (sha: string) => repoFiles.putRepoFile(t.server.ctx.db.kysely, { path, size: 1, sha256: sha, blob_key: `blob-${sha}`, created: 1, updated: 1 });
        const seen = async () => (await other.findFirstRepoFile([path]))?.sha256;
        await put('one');
        assert.equal(await seen(), 'one');
        await put('two');
        assert.equal(await seen(), 'one', 'remembered');
        await t.server.ctx.repoIndex.changed();
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
