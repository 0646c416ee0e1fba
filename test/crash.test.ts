import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, it } from 'node:test';
import { tickets } from '../src/store/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { startWorkerProcess, stopProcess } from './helpers/worker-process.js';

describeEachStore('worker crash safety', (kind) => {
  let t: TestServer;
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestServer(kind, { role: 'api' });
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await t.close();
  });

  function startWorker(): ChildProcess {
    const child = startWorkerProcess(t.settings, { PRESSROOM_LEASE_MS: '1500' });
    children.push(child);
    return child;
  }

  it('completes a ticket whose worker was killed mid-render, once, with one redelivery', async () => {
    const tokens = await setupProject(t);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/slow.typ', '#let n = 0\n#for i in range(12000000) { n += 1 }\nSLOW DONE #n\n');
    const [id] = await submit(t, tokens.jobs, '<data/>', { query: 'documentTemplate=slow' });
    const db = t.server.ctx.db.kysely;

    const first = startWorker();
    const deadline = Date.now() + 20_000;
    while (!(await tickets.findTicket(db, id!))?.lease_owner) {
      assert.ok(Date.now() < deadline, 'first worker never claimed the ticket');
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    assert.equal((await tickets.findTicket(db, id!))?.complete, 0, 'killed before it finished');

    const second = startWorker();
    const s = await waitComplete(t, tokens.jobs, id!, 60_000);
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
    assert.equal(blobs.length, 1, blobs.join(', '));
    assert.equal(await stopProcess(second), 0);
  });
});
