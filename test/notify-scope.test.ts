import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { testDatabaseUrl } from './helpers/stores.js';

const url = testDatabaseUrl();
const XML = '<data><item id="N-1"><title>Notify</title></item></data>';

/** Waits for a condition by polling; the bound only guards against a hang. */
async function until(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

if (!url) {
  it('ticket completions announced through PostgreSQL [postgres]', { skip: 'PRESSROOM_TEST_DATABASE_URL not set' }, () => {});
} else {
  describe('ticket completions announced through PostgreSQL [postgres]', () => {
    let t: TestServer;
    let jobs: string;
    const heard: string[] = [];
    const listener = new pg.Client({ connectionString: url });
    before(async () => {
      t = await startTestServer('postgres');
      ({ jobs } = await setupProject(t));
      await listener.connect();
      listener.on('notification', (m) => heard.push(m.payload ?? ''));
      await listener.query('LISTEN pressroom_events');
    });
    after(async () => {
      await listener.end();
      await t.close();
    });

    it('NOTIFY says a ticket is done only when a synchronous request waits for it', async () => {
      const [queued] = await submit(t, jobs, XML);
      await waitComplete(t, jobs, queued!);

      const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpdf?timeToWait=60000', { method: 'POST', token: jobs, body: XML, headers: { 'content-type': 'application/xml', accept: 'application/pdf' } });
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      const waited = res.headers.get('x-ticket-id')!;

      // Payloads are `<process>|<event>`. One session's notifications arrive in commit order, and
      // the queued ticket was done before the synchronous request started: had its end been
      // announced, that would be here before the synchronous ticket's.
      await until(`done:${waited} from PostgreSQL`, () => heard.some((p) => p.endsWith(`|done:${waited}`)));
      assert.deepEqual(heard.filter((p) => p.endsWith(`|done:${queued}`)), [], 'an asynchronous ticket is not announced');
    });
  });
}
