import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { artifactBytes, stepEvents, tickets } from '../src/store/index.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { crash, startWorkerProcess, stopProcess } from './helpers/worker-process.js';

describeEachStore('worker crash safety', (kind) => {
  let t: TestServer;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestServer(kind, { role: 'api' });
  });
  after(async () => {
    for (const c of children) await crash(c);
    await t.close();
  });

  function startWorker(): ChildProcess {
    // A lease a loaded machine renews in time (else a worker could take its own running ticket
    // over), short enough that the takeover after the crash comes soon.
    const child = startWorkerProcess(t.settings, { PRESSROOM_LEASE_MS: '5000' });
    children.push(child);
    return child;
  }

  it('completes a ticket whose worker was killed mid-render, once, with one redelivery', async () => {
    const tokens = await setupProject(t);
    // The template loops as often as speed.typ says (in ranges of at most 10^6, which hold no memory to speak of): for hours while the first worker has it (so
    // the kill surely lands before the end on any machine), briefly once that worker is dead.
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/speed.typ', '#let loops = 1000000000000\n');
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/slow.typ', '#import "speed.typ": loops\n#let n = 0\n#for i in range(calc.max(1, calc.quo(loops, 1000000))) { for j in range(calc.min(loops, 1000000)) { n += 1 } }\nSLOW DONE #n\n');
    const [id] = await submit(t, tokens.jobs, '<data/>', { query: 'documentTemplate=slow' });
    const db = t.server.ctx.db.kysely;

    const first = startWorker();
    const deadline = Date.now() + 120_000;
    // Claimed and its step started (recorded right after the claim commits): the render is under way.
    while ((await stepEvents.listForTicket(db, id!)).length === 0) {
      assert.ok(Date.now() < deadline, 'first worker never started the ticket');
      await new Promise((r) => setTimeout(r, 50));
    }
    await crash(first);
    const dead = await tickets.findTicket(db, id!);
    assert.equal(dead?.complete, 0, 'killed before it finished');
    // What a worker dying in the middle of writing leaves of its attempt: a finished file and a
    // part of one (written in place: nothing names an attempt's file before its commit). And
    // what an earlier version's attempt left in a folder of its own: a file and a temp file.
    const ticketDir = `jobs/acme/shop/${id}/`;
    const deadPrefix = `${ticketDir}a${dead!.attempt}.`;
    const deadFolder = `${ticketDir}a${dead!.attempt}/`;
    await t.server.ctx.blobs.putUnreferenced(`${deadPrefix}${id}.content.xml`, Buffer.from('<data/>'));
    await t.server.ctx.blobs.putUnreferenced(`${deadPrefix}${id}.typst.log`, Buffer.from('part'));
    await t.server.ctx.blobs.put(`${deadFolder}${id}.content.xml`, Buffer.from('<data/>'));
    await writeFile(join(t.settings.dataDir, 'blobs', `${deadFolder}${id}.typst.log~0123456789ab.tmp`), 'partial');
    assert.equal((await readdir(join(t.settings.dataDir, 'blobs', deadFolder))).length, 2);
    const deadFiles = async () => (await t.server.ctx.blobs.list(ticketDir)).filter((k) => k.startsWith(deadPrefix) || k.startsWith(deadFolder));
    assert.equal((await deadFiles()).length, 3);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/speed.typ', '#let loops = 1000\n');

    const second = startWorker();
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    assert.equal(s.redeliveries, 1);
    // The timeline shows the killed attempt as redelivered, then the one that finished.
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/timeline`, { token: tokens.jobs });
    const { steps } = (await res.json()) as { steps: { step: string; attempt: number; outcome: string; endedAt: string | null }[] };
    assert.deepEqual(steps.map((x) => [x.step, x.attempt, x.outcome, x.endedAt === null]), [
      ['renderpdf', 1, 'redelivered', true],
      ['renderpdf', 2, 'succeeded', false],
    ]);
    const outputs = (await tickets.listArtifacts(db, id!)).filter((a) => a.kind === 'output');
    assert.equal(outputs.length, 1);
    const blobs = (await t.server.ctx.blobs.list(`jobs/acme/shop/${id}/`)).filter((k) => k.endsWith('.pdf'));
    assert.deepEqual(blobs, [], 'the one-page PDF is kept in its row, and the killed attempt left no PDF');
    // One housekeeping round after the takeover (this one, or a scheduled one that came first)
    // removes the dead attempt's files, partial ones too, and marks the attempt.
    await runHousekeeping(t.server.ctx);
    assert.deepEqual((await stepEvents.listForTicket(db, id!)).map((e) => [e.attempt, e.outcome]), [
      [dead!.attempt, 'redelivered'],
      [dead!.attempt + 1, 'succeeded'],
    ]);
    assert.deepEqual(await deadFiles(), []);
    assert.deepEqual(await readdir(join(t.settings.dataDir, 'blobs', deadFolder)).catch(() => []), [], 'no partial write left either');
    const kept = (await tickets.listArtifacts(db, id!)).filter((a) => a.kind === 'output');
    assert.equal(kept.length, 1, 'the finished attempt keeps its output');
    assert.ok((await artifactBytes(t.server.ctx.blobs, kept[0]!))?.subarray(0, 5).equals(Buffer.from('%PDF-')), 'and its bytes');
    assert.equal((await runHousekeeping(t.server.ctx)).deadAttempts, 0, 'once');
    assert.equal(await stopProcess(second), 0);
  });
});
