import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { stepEvents, tickets } from '../src/store/index.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { testClock } from './helpers/clock.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

const grid = `<data><item id="A-1"><title>Espresso machine</title><price>249.90</price></item></data>`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Distance kept from every expiry the tests step around: far more than any test takes. */
const MARGIN = 10 * 60_000;

describeEachStore('retention', (kind) => {
  let t: TestServer;
  const clock = testClock();
  const hk = () => runHousekeeping(t.server.ctx, { now: clock.now() });
  const db = () => t.server.ctx.db.kysely;

  /** A project with its renderpdf (and optionally restapi) config.ion, and its tokens. */
  const project = async (name: string, renderpdf: string, restapi?: string) => {
    const tokens = await setupProject(t, 'acme', name);
    await putFile(t, tokens.admin, `tenants/acme/projects/${name}/renderpdf/config.ion`, renderpdf);
    if (restapi) await putFile(t, tokens.admin, `tenants/acme/projects/${name}/restapi/config.ion`, restapi);
    return tokens;
  };
  const render = async (token: string, name: string, opts: { body?: string | Buffer; query?: string; contentType?: string } = {}) => {
    const [id] = await submit(t, token, opts.body ?? grid, { project: name, ...opts });
    await waitComplete(t, token, id!, 30_000, 'acme', name);
    return id!;
  };
  /** Names of the stored files of a ticket (rows), checked against the blobs under its folder. */
  // The files a ticket keeps: each row's bytes are in the row (a small log or content file) or in
  // its blob, and the ticket's folder holds no blob without a row.
  const stored = async (name: string, id: string) => {
    const rows = await tickets.listArtifacts(db(), id);
    for (const r of rows) if (!r.data) assert.notEqual(await t.server.ctx.blobs.size(r.blob_key), undefined, `blob of ${r.name}`);
    const blobs = (await t.server.ctx.blobs.list(`jobs/acme/${name}/${id}/`)).filter((k) => !k.endsWith('/input'));
    assert.deepEqual(blobs, rows.filter((r) => !r.data).map((r) => r.blob_key).sort(), `blobs of ${id}`);
    return rows.map((r) => r.name.slice(id.length)).sort();
  };
  const status = (token: string, name: string, id: string) => t.fetch(`/rest/tenants/acme/projects/${name}/tickets/${id}/status`, { token });
  const download = async (token: string, name: string, file: string, query = '') => {
    const res = await t.fetch(`/rest/tenants/acme/projects/${name}/storage/${file}${query}`, { token });
    await res.arrayBuffer();
    return res.status;
  };
  const waitShipped = async (token: string, name: string, id: string) => {
    for (let i = 0; i < 100; i++) {
      if (((await (await status(token, name, id)).json()) as { shipped: boolean }).shipped) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`ticket ${id} never marked shipped`);
  };
  const ticketFolder = (name: string, id: string) => join(t.settings.dataDir, 'blobs', 'jobs', 'acme', name, id);

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, housekeepingMs: 0 }, { now: clock.now });
  });
  after(() => t.close());

  it('deletes output after keepOutputForSeconds under `expired`, then the ticket row and folder', async () => {
    const p = await project('exp', '{ keepOutputUntil: expired, keepOutputForSeconds: 3600, keepLog: never }');
    const id = await render(p.jobs, 'exp');
    assert.deepEqual(await stored('exp', id), ['.pdf']);
    assert.equal((await stepEvents.listForTicket(db(), id)).length, 1);
    await hk();
    // Margins of minutes on either side of the expiry: the clock also runs while the test does.
    clock.advance(HOUR - MARGIN);
    await hk();
    assert.deepEqual(await stored('exp', id), ['.pdf']);
    clock.advance(2 * MARGIN);
    const r = await hk();
    assert.ok(r.files >= 1);
    assert.deepEqual(await stored('exp', id), []);
    assert.equal(await download(p.jobs, 'exp', `${id}.pdf`), 404);
    // The status outlives the files (PRESSROOM_TICKET_RETENTION_SECONDS, 7 days by default);
    // the ticket's folder went with its last file.
    assert.equal((await status(p.jobs, 'exp', id)).status, 200);
    assert.ok(!existsSync(ticketFolder('exp', id)), 'the emptied ticket folder is pruned');
    clock.advance(7 * DAY);
    await hk();
    assert.equal((await status(p.jobs, 'exp', id)).status, 404);
    assert.equal(await tickets.findTicket(db(), id), undefined);
    assert.deepEqual(await stepEvents.listForTicket(db(), id), [], 'the timeline goes with the ticket');
    assert.ok(!existsSync(ticketFolder('exp', id)), 'the ticket folder is gone');
  });

  it('keeps an unshipped file under `shipped` however old; a storage GET ships it and it goes', async () => {
    const p = await project('ship', '{ keepOutputUntil: shipped, keepLog: never }');
    const id = await render(p.jobs, 'ship');
    clock.advance(30 * DAY);
    await hk();
    assert.deepEqual(await stored('ship', id), ['.pdf']);
    // Neither the artifact endpoint nor a storage GET with shipped=false ships it.
    const artifact = await t.fetch(`/rest/tenants/acme/projects/ship/tickets/${id}/artifact`, { token: p.jobs, headers: { accept: 'application/pdf' } });
    assert.equal(artifact.status, 200);
    await artifact.arrayBuffer();
    assert.equal(await download(p.jobs, 'ship', `${id}.pdf`, '?shipped=false'), 200);
    await hk();
    assert.deepEqual(await stored('ship', id), ['.pdf']);

    assert.equal(await download(p.jobs, 'ship', `${id}.pdf`), 200);
    await waitShipped(p.jobs, 'ship', id);
    await hk();
    assert.deepEqual(await stored('ship', id), []);
    assert.equal(await download(p.jobs, 'ship', `${id}.pdf`), 404);
    // Completed 30 days ago with nothing left: the row goes in the same round.
    assert.equal((await status(p.jobs, 'ship', id)).status, 404);
  });

  it('deletes under `shippedOrExpired` (the default) on shipping or on expiry, whichever comes first', async () => {
    const p = await project('soe', '{ keepLog: never }');
    const res = await t.fetch('/rest/tenants/acme/projects/soe/renderpdf?timeToWait=300000', {
      method: 'POST',
      token: p.jobs,
      body: grid,
      headers: { 'content-type': 'application/xml', accept: 'application/pdf' },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const synced = res.headers.get('x-ticket-id')!;
    const unshipped = await render(p.jobs, 'soe');
    await waitShipped(p.jobs, 'soe', synced);
    await hk();
    assert.deepEqual(await stored('soe', synced), [], 'shipped by the synchronous answer');
    assert.deepEqual(await stored('soe', unshipped), ['.pdf']);
    clock.advance(DAY - MARGIN);
    await hk();
    assert.deepEqual(await stored('soe', unshipped), ['.pdf']);
    clock.advance(2 * MARGIN);
    await hk();
    assert.deepEqual(await stored('soe', unshipped), []);
  });

  it('never deletes under `forever`, shipped or not', async () => {
    const p = await project('keep', '{ keepOutputUntil: forever, keepLogUntil: forever }');
    const id = await render(p.jobs, 'keep');
    assert.equal(await download(p.jobs, 'keep', `${id}.pdf`), 200);
    await waitShipped(p.jobs, 'keep', id);
    clock.advance(400 * DAY);
    await hk();
    assert.deepEqual(await stored('keep', id), ['.content.xml', '.pdf', '.typst.log']);
    assert.equal((await status(p.jobs, 'keep', id)).status, 200);
  });

  it('stores logs by keepLog (onerror or always) and deletes them after keepLogForSeconds', async () => {
    const onError = await project('logerr', '{ keepLog: onerror, keepLogForSeconds: 60 }');
    await putFile(t, onError.admin, 'tenants/acme/projects/logerr/master-documents/broken.typ', '#let x = (1 +\n');
    const good = await render(onError.jobs, 'logerr');
    const bad = await render(onError.jobs, 'logerr', { query: 'documentTemplate=broken' });
    assert.deepEqual(await stored('logerr', good), ['.pdf']);
    assert.deepEqual(await stored('logerr', bad), ['.content.xml', '.typst.log']);

    const always = await project('logall', '{ keepLog: always, keepLogForSeconds: 60, keepOutputForSeconds: 3600 }');
    const both = await render(always.jobs, 'logall');
    assert.deepEqual(await stored('logall', both), ['.content.xml', '.pdf', '.typst.log']);

    clock.advance(61_000);
    await hk();
    assert.deepEqual(await stored('logerr', bad), []);
    assert.deepEqual(await stored('logerr', good), ['.pdf']);
    assert.deepEqual(await stored('logall', both), ['.pdf']);
    clock.advance(3600_000);
    await hk();
    assert.deepEqual(await stored('logall', both), []);
  });

  it('deletes the input, inline or blob, after keepInputForSeconds', async () => {
    const p = await project('input', '{ keepLog: never }', '{ keepInputForSeconds: 3600 }');
    const inline = await render(p.jobs, 'input');
    const blob = await render(p.jobs, 'input', { body: await zipOf({ 'data.xml': grid }), contentType: 'application/zip' });
    const before = { inline: (await tickets.findTicket(db(), inline))!, blob: (await tickets.findTicket(db(), blob))! };
    assert.ok(before.inline.input_inline && before.inline.input_key === null);
    assert.ok(before.blob.input_key && (await t.server.ctx.blobs.size(before.blob.input_key)) !== undefined);
    // The input sits beside the ticket's folder, never in it: no folder is made for it alone. The
    // folder holds only the step's files not kept in their rows (none on SQLite; on PostgreSQL
    // with files, a PDF above 16 KiB).
    assert.equal(before.blob.input_key, `jobs/acme/input/${blob}.input`);
    const stepBlobs = (await tickets.listArtifacts(db(), blob)).filter((r) => !r.data).map((r) => r.blob_key);
    assert.deepEqual(await t.server.ctx.blobs.list(`jobs/acme/input/${blob}/`), stepBlobs.sort());
    clock.advance(HOUR - MARGIN);
    await hk();
    assert.ok((await tickets.findTicket(db(), inline))!.input_inline);
    clock.advance(2 * MARGIN);
    const r = await hk();
    assert.ok(r.inputs >= 2);
    const afterInline = (await tickets.findTicket(db(), inline))!;
    const afterBlob = (await tickets.findTicket(db(), blob))!;
    assert.equal(afterInline.input_inline, null);
    assert.equal(afterBlob.input_key, null);
    assert.equal(await t.server.ctx.blobs.size(before.blob.input_key!), undefined);
    // The outputs follow their own rule (a day by default).
    assert.deepEqual(await stored('input', blob), ['.pdf']);
  });

  it("keeps a fanout part's files and row while its aggregate is open", async () => {
    const p = await project('parts', '{ keepOutputUntil: expired, keepOutputForSeconds: 60, keepLog: never }');
    const part = await render(p.jobs, 'parts');
    const row = (await tickets.findTicket(db(), part))!;
    // An aggregate that is open and not due (as while it waits for other parts).
    const aggregate = `${part.slice(0, -4)}AGGR`;
    await db().insertInto('tickets').values({ ...row, id: aggregate, next: null, complete: 0, completed: null, input_inline: null, output_name: null }).execute();
    await db().updateTable('tickets').set({ aggregate_id: aggregate }).where('id', '=', part).execute();
    clock.advance(8 * DAY);
    await hk();
    assert.deepEqual(await stored('parts', part), ['.pdf']);
    await db().updateTable('tickets').set({ complete: 1, completed: clock.now() - 8 * DAY }).where('id', '=', aggregate).execute();
    await hk();
    assert.deepEqual(await stored('parts', part), []);
    assert.equal(await tickets.findTicket(db(), part), undefined);
  });

  it("uses the project's keepUntil when the config sets no rule, and deletes everything at the project's expires date", async () => {
    const op = await t.operatorToken();
    const create = async (query: string) => assert.equal((await t.fetch(`/rest/tenants/acme/projects?${query}`, { method: 'POST', token: op })).status, 200);
    await create('name=ruled&keepUntil=shipped');
    const ruled = await t.token('acme', 'ruled', 'jobs');
    const id = await render(ruled, 'ruled');
    clock.advance(30 * DAY);
    await hk();
    assert.deepEqual(await stored('ruled', id), ['.content.xml', '.pdf', '.typst.log']);

    const expires = clock.now() + 3600_000;
    await create(`name=ending&expires=${new Date(expires).toISOString()}`);
    const admin = await t.token('acme', 'ending', 'admin');
    await putFile(t, admin, 'tenants/acme/projects/ending/renderpdf/config.ion', '{ keepOutputUntil: forever }');
    const jobs = await t.token('acme', 'ending', 'jobs');
    const ending = await render(jobs, 'ending', { body: await zipOf({ 'data.xml': grid }), contentType: 'application/zip' });
    const rows = await tickets.listArtifacts(db(), ending);
    assert.deepEqual(rows.map((r) => r.keep_until), [expires, expires, expires], 'every file carries the project expiry');
    // From the expiry itself, not from now: rendering took a while of the clock's real time.
    clock.set(expires - MARGIN);
    await hk();
    assert.deepEqual(await stored('ending', ending), ['.content.xml', '.pdf', '.typst.log']);
    clock.set(expires + MARGIN);
    await hk();
    assert.deepEqual(await stored('ending', ending), []);
    assert.equal((await tickets.findTicket(db(), ending))!.input_key, null, 'the input went too');
  });
});
