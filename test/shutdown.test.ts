import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadSettings } from '../src/config/settings.js';
import { startServer } from '../src/server.js';
import { openDb, tickets, type TicketRow } from '../src/store/index.js';
import { pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { ServeProcess } from './helpers/serve-process.js';
import { freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

// The slow template loops as often as speed.typ says (in ranges of at most 10^6, which hold no memory to speak of): forever in the first process (so the
// grace period surely runs out whatever the machine's speed), briefly after the restart.
const slowTemplate = '#import "speed.typ": loops\n#let n = 0\n#for i in range(calc.max(1, calc.quo(loops, 1000000))) { for j in range(calc.min(loops, 1000000)) { n += 1 } }\nSLOW DONE #n\n';

describeEachStore('SIGTERM during a render', (kind) => {
  it('stops claiming, waits the grace period, releases the ticket; a restart takes it up at once with no redelivery', async () => {
    const fresh = await freshSettings(kind);
    const env = {
      ...fresh.env,
      // A lease far longer than the test: only the release can make the ticket due again.
      PRESSROOM_LEASE_MS: '3600000',
      PRESSROOM_SHUTDOWN_GRACE_MS: '300',
      PRESSROOM_RENDER_TIMEOUT_MS: '3600000',
      PRESSROOM_RENDER_THREADS: '1',
      PRESSROOM_POLL_MS: '100',
    };
    const db = openDb(loadSettings(env));
    const row = async (id: string): Promise<TicketRow> => (await tickets.findTicket(db.kysely, id))!;
    const waitFor = async (what: string, ms: number, check: () => Promise<boolean>) => {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        assert.ok(Date.now() < deadline, `${what} within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const processes: ServeProcess[] = [];
    try {
      const first = await ServeProcess.start(env);
      processes.push(first);
      const tokens = await setupProject(first);
      await putFile(first, tokens.admin, 'tenants/acme/projects/shop/master-documents/speed.typ', '#let loops = 1000000000000\n');
      await putFile(first, tokens.admin, 'tenants/acme/projects/shop/master-documents/slow.typ', slowTemplate);
      const [id] = await submit(first, tokens.jobs, '<data/>', { query: 'documentTemplate=slow' });
      await waitFor('the first process claims the ticket', 60_000, async () => (await row(id!)).lease_owner !== null);
      const claimed = await row(id!);

      const exit = await first.stop('SIGTERM', 60_000);
      assert.deepEqual(exit, { code: 0, signal: null }, first.stderr);
      const released = await row(id!);
      assert.equal(released.complete, 0);
      assert.equal(released.lease_owner, null, 'lease released');
      assert.equal(released.lease_until, null);
      assert.equal(released.redeliveries, 0);
      assert.equal(released.attempt, claimed.attempt, 'no later attempt ran');
      assert.ok(released.run_after <= Date.now(), 'due at once');

      // Meanwhile the template is fixed to finish (through an api-only process: no worker claims).
      const api = await startServer({ ...loadSettings(env), role: 'api', port: 0 });
      try {
        const res = await fetch(`${api.url}/rest/repository/files/tenants/acme/projects/shop/master-documents/speed.typ`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/octet-stream', accept: 'application/json' },
          body: '#let loops = 1000\n',
        });
        assert.equal(res.status, 200, await res.text());
      } finally {
        await api.stop();
      }

      const second = await ServeProcess.start(env);
      processes.push(second);
      await waitFor('the restarted process takes the ticket up', 5000, async () => {
        const r = await row(id!);
        return r.lease_owner !== null || r.complete === 1;
      });
      const done = await waitComplete(second, tokens.jobs, id!, 120_000);
      assert.equal(done.status, 'renderpdf.succeeded', JSON.stringify(done));
      assert.equal(done.redeliveries, 0);
      assert.match((await pdfText(await artifactPdf(second, tokens.jobs, id!))).join('\n'), /SLOW DONE 1000/);
    } finally {
      // SIGTERM first: a clean stop also ends render processes still looping (SIGKILL after 60 s).
      for (const p of processes) await p.stop('SIGTERM');
      await db.close();
      await fresh.cleanup();
    }
  });
});
