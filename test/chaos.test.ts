import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import pgDriver from 'pg';
import { createContext } from '../src/server.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { Cluster, eachLimited, submitJobs, until } from './helpers/chaos.js';
import { kill, stop } from './helpers/cluster.js';
import { putFile, setupProject } from './helpers/project.js';
import { startReceiver, type Received } from './helpers/receiver.js';
import { createTestBucket, s3Endpoint, s3Env, s3Overrides } from './helpers/s3.js';
import { ADMIN_PASSWORD, freshSettings, startTestServerOn } from './helpers/server.js';
import { testDatabaseUrl } from './helpers/stores.js';

const JOBS = 300;
const LEASE_MS = 3000;
const SECRET = 'whsec_' + Buffer.from('chaos-signing-key-0123456789abcdef').toString('base64');
const P = 'tenants/chaos/projects/run';
const retry = '[ { codePattern: "5\\\\d\\\\d", maxRedeliveries: 10, redeliverIntervalMillis: 200 } ]';
const skip = !testDatabaseUrl() ? 'PRESSROOM_TEST_DATABASE_URL not set' : !s3Endpoint ? 'PRESSROOM_TEST_S3_ENDPOINT not set' : false;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// Two API and two worker processes on PostgreSQL and S3; one of each is killed with SIGKILL
// mid-run and started again. Every ticket a client got a 202 for must complete exactly once.
describe('chaos: 2 API + 2 worker processes on PostgreSQL and S3', { skip }, () => {
  it(`runs ${JOBS} async jobs with upload and callback webhooks through two kills`, { timeout: 900_000 }, async (tc) => {
    const began = Date.now();
    const bucket = await createTestBucket();
    const fresh = await freshSettings('postgres', { ...s3Overrides(bucket.name), allowPrivateAddresses: ['127.0.0.1'] });
    const receiver = await startReceiver();
    const db = new pgDriver.Client({ connectionString: fresh.settings.databaseUrl! });
    let cluster: Cluster | null = null;
    try {
      // Configured through an embedded process on the same database and bucket, stopped before the run.
      const setup = await startTestServerOn(fresh.settings, async () => {});
      const { jobs, admin } = await setupProject(setup, 'chaos', 'run');
      await putFile(setup, admin, `${P}/restapi/config.ion`, `{ webhookSecret: "${SECRET}" }`);
      await putFile(setup, admin, `${P}/renderpdf/config.ion`, `{ keepOutputUntil: "forever", keepLog: "never", redeliverOnError: ${retry} }`);
      await putFile(setup, admin, `${P}/upload/config.ion`, `{ redeliverOnError: ${retry} }`);
      await putFile(setup, admin, `${P}/callback/config.ion`, `{ redeliverOnError: ${retry} }`);
      await putFile(setup, admin, `${P}/master-documents/chaos.typ`, '#set page(width: 220pt, height: 40pt, margin: 4pt)\n#set text(size: 8pt)\nchaos #sys.inputs.foreignKey #sys.inputs.ticket\n');
      await setup.close();

      cluster = new Cluster({
        ...fresh.env,
        ...s3Env(bucket.name),
        PRESSROOM_ADMIN_PASSWORD: ADMIN_PASSWORD,
        PRESSROOM_LEASE_MS: String(LEASE_MS),
        PRESSROOM_POLL_MS: '100',
        PRESSROOM_RENDER_THREADS: '1',
        PRESSROOM_WORKER_CONCURRENCY: '4',
        PRESSROOM_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1',
        // Every output an object in the bucket (these small PDFs would otherwise stay in their
        // rows): the S3 path is what this test puts through the kills. test/artifacts-in-row covers rows.
        PRESSROOM_INLINE_FILE_MAX_BYTES: '0',
        PRESSROOM_HOUSEKEEPING_MS: '0',
      });
      const c = cluster;
      await c.start(2, 2);
      const clusterUp = Date.now();
      await db.connect();
      await db.query(`SET search_path TO "${fresh.settings.databaseSchema}"`);

      // A third of the way in, one API dies mid-burst (its requests in flight get no answer);
      // halfway, one worker dies while it holds leases. Both are started again at once.
      let apiKill: Promise<void> | null = null;
      let apiKilledAt = 0;
      let workerKill: Promise<{ held: number; reclaimMs: number[] }> | null = null;
      const headers = { authorization: `Bearer ${jobs}`, 'content-type': 'application/xml', accept: 'application/json' };
      const query = (i: number) => new URLSearchParams({ documentTemplate: 'chaos', foreignKey: `job-${i}`, upload: `${receiver.url}/up/{ticket}`, callback: `${receiver.url}/cb/{ticket}` });
      const submitted = await submitJobs(
        c,
        JOBS,
        6,
        (i) => ({ path: `/rest/${P}/renderpdf?${query(i).toString()}`, init: { method: 'POST', headers, body: `<data><n>${i}</n></data>` } }),
        (s) => {
          if (!apiKill && s.acknowledged.size >= JOBS / 3) {
            apiKilledAt = Date.now();
            apiKill = c.killApi(1);
          }
          if (!workerKill && s.acknowledged.size >= JOBS / 2) workerKill = c.killWorker(0, db);
        },
      );
      await apiKill;
      const reclaim = await workerKill!;

      const ids = [...submitted.acknowledged.values()];
      const openOf = async () => Number((await db.query('select count(*) as n from tickets where id = any($1) and complete = 0', [ids])).rows[0].n);
      await until('every acknowledged ticket to complete', async () => (await openOf()) === 0, 300_000);
      const doneAt = Date.now();

      // Exactly once: one ticket per submission, each complete, one output each, each completion counted once.
      const rows = (await db.query('select id, foreign_key, status, redeliveries from tickets')).rows as { id: string; foreign_key: string; status: string; redeliveries: number }[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const lost = ids.filter((id) => byId.get(id)?.status !== 'callback.succeeded');
      assert.deepEqual(lost.map((id) => byId.get(id) ?? id), [], 'every acknowledged ticket ends in callback.succeeded');
      const keys = rows.map((r) => r.foreign_key);
      assert.equal(new Set(keys).size, keys.length, 'one ticket per submission');
      // Unacknowledged submissions may have been committed (their API died after the commit): those complete too.
      const unackStored = rows.filter((r) => submitted.unacknowledged.includes(Number(r.foreign_key.slice(4))));
      for (const r of unackStored) assert.equal(r.status, 'callback.succeeded', JSON.stringify(r));
      assert.equal(rows.length, ids.length + unackStored.length);
      const artifacts = (await db.query('select ticket, kind, name, blob_key from artifacts')).rows as { ticket: string; kind: string; name: string; blob_key: string }[];
      const outputs = new Map<string, string>();
      for (const a of artifacts) {
        assert.equal(a.kind, 'output', `only outputs are kept: ${a.name}`);
        assert.ok(!outputs.has(a.ticket), `one artifact for ${a.ticket}`);
        outputs.set(a.ticket, a.blob_key);
      }
      assert.equal(outputs.size, rows.length);
      const counted = Number((await db.query(`select coalesce(sum(tickets), 0) as n from stats where tenant = 'chaos' and unit = 'month'`)).rows[0].n);
      assert.equal(counted, rows.length, 'statistics count every completion once');

      // Webhooks: at least once each, repeats under the same webhook-id.
      const deliveries = new Map<string, Received[]>();
      for (const r of receiver.requests) deliveries.set(r.url, [...(deliveries.get(r.url) ?? []), r]);
      let repeats = 0;
      for (const { id } of rows) {
        for (const step of ['upload', 'callback'] as const) {
          const got = deliveries.get(`/${step === 'upload' ? 'up' : 'cb'}/${id}`) ?? [];
          assert.ok(got.length >= 1, `${step} of ${id} delivered`);
          assert.deepEqual([...new Set(got.map((g) => g.headers['webhook-id']))], [`msg_${id}_${step}_0`], `${step} of ${id}: one webhook-id`);
          repeats += got.length - 1;
        }
      }

      // The same bytes from both APIs, in every upload, and in the bucket.
      await eachLimited(ids, 8, async (id) => {
        const served = await Promise.all(
          c.apis.map(async (api) => {
            const res = await fetch(`${api.url}/rest/${P}/storage/${id}.pdf?shipped=false`, { headers: { authorization: `Bearer ${jobs}`, accept: '*/*' } });
            assert.equal(res.status, 200, id);
            return Buffer.from(await res.arrayBuffer());
          }),
        );
        assert.ok(served[0]!.equals(served[1]!), `${id}: both APIs serve the same bytes`);
        assert.ok(deliveries.get(`/up/${id}`)!.every((u) => u.body.equals(served[0]!)), `${id}: the upload carried the same bytes`);
        const object = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: `pressroom/${outputs.get(id)}` }));
        assert.ok(Buffer.from(await object.Body!.transformToByteArray()).equals(served[0]!), `${id}: the bucket holds them`);
      });

      // After housekeeping the bucket holds what the rows name, nothing else.
      for (const m of c.all) if (m.child.exitCode === null && m.child.signalCode === null) assert.equal(await stop(m), 0, `${m.role} stops cleanly`);
      const ctx = await createContext(fresh.settings);
      await runHousekeeping(ctx, { temp: true }).finally(() => ctx.close());
      const named = new Set([...outputs.values()]);
      for (const r of (await db.query('select blob_key from repo_files')).rows as { blob_key: string }[]) named.add(r.blob_key);
      for (const r of (await db.query('select input_key from tickets where input_key is not null')).rows as { input_key: string }[]) named.add(r.input_key);
      const strays = (await bucket.keys()).map((k) => k.slice('pressroom/'.length)).filter((k) => !named.has(k));
      const deadAttempts = strays.filter((k) => /^jobs\/chaos\/run\/[0-9A-Z]{26}\/a\d+[./]/.test(k));
      assert.deepEqual(strays, [], 'no stray objects, none of dead attempts either');

      const reclaimed = reclaim.reclaimMs.length ? `${seconds(Math.min(...reclaim.reclaimMs))}–${seconds(Math.max(...reclaim.reclaimMs))}` : 'n/a';
      tc.diagnostic(
        `chaos figures: jobs ${JOBS}, acknowledged ${ids.length}, unacknowledged ${submitted.unacknowledged.length} (${unackStored.length} of them stored and completed); ` +
          `kills: 1 API at ${seconds(apiKilledAt - clusterUp)}, 1 worker holding ${reclaim.held} ticket(s), taken over ${reclaimed} after the kill (lease ${seconds(LEASE_MS)}); ` +
          `duplicates 0, lost ${lost.length}; tickets redelivered ${rows.filter((r) => r.redeliveries > 0).length}, repeated webhook deliveries ${repeats}; ` +
          `dead-attempt objects ${deadAttempts.length}; run ${seconds(doneAt - clusterUp)}, whole test ${seconds(Date.now() - began)}`,
      );
    } finally {
      for (const m of cluster?.all ?? []) await kill(m);
      await db.end().catch(() => {});
      await receiver.close();
      await fresh.cleanup();
      await bucket.remove();
    }
  });
});
