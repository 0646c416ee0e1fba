import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, it } from 'node:test';
import { stepEvents, tickets } from '../src/store/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { startWorkerProcess, stopProcess } from './helpers/worker-process.js';

const P = 'tenants/acme/projects/shop';

describeEachStore('webhooks: at-least-once across a worker crash', (kind) => {
  let t: TestServer;
  let r: Receiver;
  let onFirst: () => void = () => {};
  const children: ChildProcess[] = [];
  before(async () => {
    t = await startTestServer(kind, { role: 'api' });
    // The first callback never gets an answer: its worker is killed while it waits.
    r = await startReceiver((_req, i) => {
      if (i === 0) {
        onFirst();
        return 'hang';
      }
      return {};
    });
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await r.close();
    await t.close();
  });

  function startWorker(): ChildProcess {
    // A lease a loaded machine renews in time (else a worker could take its own running ticket
    // over), short enough that the takeover after the crash comes soon.
    const child = startWorkerProcess(t.settings, { PRESSROOM_LEASE_MS: '5000', PRESSROOM_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1' });
    children.push(child);
    return child;
  }

  it('delivers the callback of a worker killed between render and callback, again with the same webhook-id', async () => {
    const tokens = await setupProject(t);
    await putFile(t, tokens.admin, `${P}/restapi/config.ion`, `{ webhookSecret: "whsec_${Buffer.from('crash-test-signing-key-123456').toString('base64')}" }`);
    const [id] = await submit(t, tokens.jobs, '<data><item><name>one</name></item></data>', { query: `callback=${encodeURIComponent(`${r.url}/done/{ticket}`)}` });
    const db = t.server.ctx.db.kysely;

    const first = startWorker();
    await new Promise<void>((resolve) => (onFirst = resolve));
    const during = (await tickets.findTicket(db, id!))!;
    assert.equal(during.status, 'renderpdf.succeeded', 'the render was committed');
    assert.equal(during.next, 'callback');
    first.kill('SIGKILL');
    await new Promise((res) => first.once('exit', res));

    const second = startWorker();
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.equal(s.redeliveries, 1, 'the takeover counts as a redelivery');
    assert.equal(r.requests.length, 2, 'delivered twice: at least once');
    const [a, b] = r.requests;
    assert.equal(a!.url, `/done/${id}`);
    assert.equal(b!.url, `/done/${id}`);
    assert.equal(a!.headers['webhook-id'], `msg_${id}_callback_0`);
    assert.equal(b!.headers['webhook-id'], a!.headers['webhook-id'], 'the receiver can drop the duplicate by webhook-id');
    const renders = (await stepEvents.listForTicket(t.server.ctx.db.kysely, id!)).filter((e) => e.step === 'renderpdf');
    assert.deepEqual(renders.map((e) => e.outcome), ['succeeded'], 'the render did not run again');
    assert.equal(await stopProcess(second), 0);
  });
});
