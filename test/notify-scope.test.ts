import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createNotifier, eventChannel, openDb } from '../src/store/index.js';
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
      await listener.query(`LISTEN ${eventChannel(t.settings.databaseSchema)}`);
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

    it("hears its own schema's processes and not those of another schema of the database", async () => {
      // Two more processes as far as PostgreSQL is concerned, on one more pool: one in the
      // server's schema, one in another (another deployment, another test run) whose name is as
      // long as a schema's can be, so its channel's name is shortened.
      const db = openDb(t.settings);
      const logger = pino({ level: 'silent' });
      const sameSchema = await createNotifier(db, logger, t.settings.databaseSchema);
      const longName = `${t.settings.databaseSchema}_`.padEnd(63, 'o');
      const otherSchema = await createNotifier(db, logger, longName);
      const seen: string[] = [];
      const unsubscribe = t.server.ctx.notifier.subscribe((event) => seen.push(event));
      try {
        for (let i = 0; i < 20; i++) await otherSchema.publish(`other-schema-${i}`);
        await sameSchema.publish('same-schema');
        // NOTIFYs reach a listener in the order they committed: had the server been listening
        // to the other schema's channel, its events would all be here before this one.
        await until('the event of a process in the same schema', () => seen.includes('same-schema'));
        assert.deepEqual(seen.filter((e) => e.startsWith('other-schema-')), []);
      } finally {
        unsubscribe();
        await Promise.all([sameSchema.close(), otherSchema.close()]);
        await db.close();
      }
    });
  });
}
