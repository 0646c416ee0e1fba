import assert from 'node:assert/strict';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describe, it } from 'node:test';
import pgDriver from 'pg';
import { createContext } from '../src/context.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { kill, startMember, stop, type Member } from './helpers/cluster.js';
import { putFile, setupProject } from './helpers/project.js';
import { startReceiver, type Received } from './helpers/receiver.js';
import { createTestBucket, s3Endpoint, s3Env, s3Overrides } from './helpers/s3.js';
import { ADMIN_PASSWORD, freshSettings, startTestServerOn } from './helpers/server.js';
import { testDatabaseUrl } from './helpers/stores.js';

const { Client: PgClient } = pgDriver;

const JOBS = 300;
const LEASE_MS = 3000;
const SECRET = 'whsec_' + Buffer.from('chaos-signing-key-0123456789abcdef').toString('base64');
const P = 'tenants/chaos/projects/run';
const retry = '[ { codePattern: "5\\\\d\\\\d", maxRedeliveries: 10, redeliverIntervalMillis: 200 } ]';

const skip = !testDatabaseUrl() ? 'PRESSROOM_TEST_DATABASE_URL not set' : !s3Endpoint ? 'PRESSROOM_TEST_S3_ENDPOINT not set' : false;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/** Runs `fn` over `items`, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

// Two API and two worker processes on PostgreSQL and S3; one of each is killed with SIGKILL
// mid-run and started again. Every ticket a client got a 202 for must complete exactly once.
describe('chaos: 2 API + 2 worker processes on PostgreSQL and S3', { skip }, () => {
  it(`runs ${JOBS} async jobs with upload and callback webhooks through two kills`, { timeout: 600_000 }, async (tc) => {
    const began = Date.now();
    const bucket = await createTestBucket();
    const fresh = await freshSettings('postgres', { ...s3Overrides(bucket.name), allowPrivateAddresses: ['127.0.0.1'] });
    const receiver = await startReceiver();
    const members: Member[] = [];
    try {
      // Set up through an embedded process on the same database and bucket: tenant, project, configuration.
      const t = await startTestServerOn(fresh.settings, async () => {});
      const tokens = await setupProject(t, 'chaos', 'run');
      await putFile(t, tokens.admin, `${P}/restapi/config.ion`, `{ webhookSecret: "${SECRET}" }`);
      await putFile(t, tokens.admin, `${P}/renderpdf/config.ion`, `{ keepOutputUntil: "forever", keepLog: "never", redeliverOnError: ${retry} }`);
      await putFile(t, tokens.admin, `${P}/upload/config.ion`, `{ redeliverOnError: ${retry} }`);
      await putFile(t, tokens.admin, `${P}/callback/config.ion`, `{ redeliverOnError: ${retry} }`);
      await putFile(t, tokens.admin, `${P}/master-documents/chaos.typ`, '#set page(width: 220pt, height: 40pt, margin: 4pt)\n#set text(size: 8pt)\nchaos #sys.inputs.foreignKey #sys.inputs.ticket\n');
      await t.close();

      const env: Record<string, string> = {
        ...fresh.env,
        ...s3Env(bucket.name),
        PRESSROOM_ADMIN_PASSWORD: ADMIN_PASSWORD,
        PRESSROOM_LEASE_MS: String(LEASE_MS),
        PRESSROOM_POLL_MS: '100',
        PRESSROOM_RENDER_THREADS: '1',
        PRESSROOM_WORKER_CONCURRENCY: '4',
        PRESSROOM_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1',
        PRESSROOM_HOUSEKEEPING_MS: '0',
      };
      const started = await Promise.all([startMember('api', env), startMember('api', env), startMember('worker', env), startMember('worker', env)]);
      members.push(...started);
      const apis = [started[0]!, started[1]!];
      const workers = [started[2]!, started[3]!];
      const up = [true, true];
      const clusterUp = Date.now();

      const pg = new PgClient({ connectionString: fresh.settings.databaseUrl! });
      await pg.connect();
      await pg.query(`SET search_path TO "${fresh.settings.databaseSchema}"`);
      const count = async (where: string, values: unknown[] = []) => Number((await pg.query(`select count(*) as n from tickets where ${where}`, values)).rows[0].n);

      // Submissions: both APIs in turn; a refused connection (nothing sent) goes to the other API,
      // anything else without a 202 counts as unacknowledged and is never retried (it could be a duplicate).
      const acknowledged = new Map<number, string>();
      const unacknowledged: number[] = [];
      const query = (i: number) => new URLSearchParams({ documentTemplate: 'chaos', foreignKey: `job-${i}`, upload: `${receiver.url}/up/{ticket}`, callback: `${receiver.url}/cb/{ticket}` }).toString();
      let apiKill: Promise<void> | null = null;
      let apiKilledAt = 0;
      const submitOne = async (i: number): Promise<void> => {
        for (let turn = 0; turn < 2; turn++) {
          const a = (i + turn) % 2;
          if (!up[a]) continue;
          let res: Response;
          try {
            res = await fetch(`${apis[a]!.url}/rest/${P}/renderpdf?${query(i)}`, { method: 'POST', headers: { authorization: `Bearer ${tokens.jobs}`, 'content-type': 'application/xml', accept: 'application/json' }, body: `<data><n>${i}</n></data>` });
          } catch (err) {
            if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') continue;
            unacknowledged.push(i);
            return;
          }
          if (res.status !== 202) {
            unacknowledged.push(i);
            await res.arrayBuffer();
            return;
          }
          acknowledged.set(i, ((await res.json()) as { tickets: { id: string }[] }).tickets[0]!.id);
          // A third of the way in, one API dies mid-burst and comes back on a new port.
          if (acknowledged.size === Math.floor(JOBS / 3) && !apiKill) {
            apiKill = (async () => {
              up[1] = false;
              apiKilledAt = Date.now();
              await kill(apis[1]!);
              apis[1] = await startMember('api', env);
              members.push(apis[1]);
              up[1] = true;
            })();
          }
          return;
        }
        unacknowledged.push(i);
      };

      // Halfway through, one worker dies while it holds leases, and is started again.
      const workerKill = (async () => {
        await until('half of the jobs submitted', async () => acknowledged.size >= JOBS / 2, 300_000);
        const victim = workers[0]!;
        const owner = `w-%-${victim.pid}-%`;
        await until('the victim to hold a lease', async () => (await count('lease_owner like $1 and lease_until > $2', [owner, Date.now()])) > 0, 120_000);
        const killedAt = Date.now();
        await kill(victim);
        const held = (await pg.query('select id, attempt from tickets where lease_owner like $1 and complete = 0', [owner])).rows as { id: string; attempt: number }[];
        // Restarted at once; the survivor takes the tickets over as their leases run out, meanwhile.
        const restarted = startMember('worker', env).then((m) => {
          workers[0] = m;
          members.push(m);
        });
        const reclaimed = new Map<string, number>();
        await until(
          'the dead worker’s tickets to be taken over',
          async () => {
            for (const h of held) {
              if (reclaimed.has(h.id)) continue;
              const row = (await pg.query('select attempt, lease_owner from tickets where id = $1', [h.id])).rows[0] as { attempt: number; lease_owner: string | null };
              if (row.attempt > h.attempt) reclaimed.set(h.id, Date.now() - killedAt);
            }
            return reclaimed.size === held.length;
          },
          120_000,
        );
        await restarted;
        return { held: held.length, reclaimMs: [...reclaimed.values()] };
      })();

      await eachLimited(
        Array.from({ length: JOBS }, (_, i) => i),
        6,
        submitOne,
      );
      await apiKill;
      const reclaim = await workerKill;

      // Every acknowledged ticket completes.
      const ids = [...acknowledged.values()];
      await until('every acknowledged ticket to complete', async () => (await count('id = any($1) and complete = 1', [ids])) === ids.length, 300_000);
      const doneAt = Date.now();

      const rows = (await pg.query('select id, foreign_key, status, error_code, redeliveries, attempt from tickets')).rows as { id: string; foreign_key: string; status: string; error_code: string | null; redeliveries: number }[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const lost = ids.filter((id) => byId.get(id)?.status !== 'callback.succeeded');
      assert.deepEqual(lost.map((id) => byId.get(id)), [], 'every acknowledged ticket ends in callback.succeeded');
      const perKey = new Map<string, number>();
      for (const r of rows) perKey.set(r.foreign_key, (perKey.get(r.foreign_key) ?? 0) + 1);
      const duplicates = [...perKey.values()].filter((n) => n > 1).length;
      assert.equal(duplicates, 0, 'one ticket per submission');
      // Submissions without a 202 may still have been committed (the API died after the commit): they complete too.
      const unackStored = rows.filter((r) => unacknowledged.includes(Number(r.foreign_key.slice(4))));
      for (const r of unackStored) assert.equal(r.status, 'callback.succeeded', JSON.stringify(r));

      // Exactly once: one output per ticket, and the statistics counted each completion once.
      const artifacts = (await pg.query('select ticket, kind, name, blob_key from artifacts')).rows as { ticket: string; kind: string; name: string; blob_key: string }[];
      const outputs = new Map<string, string>();
      for (const a of artifacts) {
        assert.equal(a.kind, 'output', `only outputs are kept: ${a.name}`);
        assert.ok(!outputs.has(a.ticket), `one artifact for ${a.ticket}`);
        outputs.set(a.ticket, a.blob_key);
      }
      assert.equal(outputs.size, rows.length);
      const counted = Number((await pg.query(`select coalesce(sum(tickets), 0) as n from stats where tenant = 'chaos' and unit = 'month'`)).rows[0].n);
      assert.equal(counted, rows.length, 'statistics count every completion once');

      // Webhooks: every ticket's upload and callback arrived at least once; repeats carry the same webhook-id.
      const deliveries = new Map<string, Received[]>();
      for (const r of receiver.requests) deliveries.set(r.url, [...(deliveries.get(r.url) ?? []), r]);
      let repeats = 0;
      for (const id of [...ids, ...unackStored.map((r) => r.id)]) {
        for (const [path, step] of [[`/up/${id}`, 'upload'], [`/cb/${id}`, 'callback']] as const) {
          const got = deliveries.get(path) ?? [];
          assert.ok(got.length >= 1, `${step} of ${id} delivered`);
          assert.deepEqual(new Set(got.map((g) => g.headers['webhook-id'])), new Set([`msg_${id}_${step}_0`]), `${step} of ${id}: one webhook-id`);
          repeats += got.length - 1;
        }
      }

      // Identical bytes from both APIs, from the bucket and in the upload.
      await eachLimited(ids, 8, async (id) => {
        const [a, b] = await Promise.all(
          apis.map(async (api) => {
            const res = await fetch(`${api.url}/rest/${P}/storage/${id}.pdf?shipped=false`, { headers: { authorization: `Bearer ${tokens.jobs}`, accept: '*/*' } });
            assert.equal(res.status, 200, id);
            return Buffer.from(await res.arrayBuffer());
          }),
        );
        assert.ok(a!.equals(b!), `${id}: both APIs serve the same bytes`);
        const uploads = deliveries.get(`/up/${id}`)!;
        assert.ok(uploads.every((u) => u.body.equals(a!)), `${id}: the upload carried the same bytes`);
        const object = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: `pressroom/${outputs.get(id)}` }));
        assert.ok(Buffer.from(await object.Body!.transformToByteArray()).equals(a!), `${id}: the bucket holds them`);
      });

      // After housekeeping, the bucket holds what the rows name and nothing else.
      for (const m of members) if (m.child.exitCode === null && m.child.signalCode === null) assert.equal(await stop(m), 0, `${m.role} stops cleanly`);
      const ctx = await createContext(fresh.settings);
      try {
        await runHousekeeping(ctx, { temp: true });
      } finally {
        await ctx.close();
      }
      const named = new Set<string>([...outputs.values()]);
      for (const r of (await pg.query('select blob_key from repo_files')).rows as { blob_key: string }[]) named.add(r.blob_key);
      for (const r of (await pg.query('select input_key from tickets where input_key is not null')).rows as { input_key: string }[]) named.add(r.input_key);
      const strays = (await bucket.keys()).map((k) => k.slice('pressroom/'.length)).filter((k) => !named.has(k));
      const deadAttempt = strays.filter((k) => /^jobs\/chaos\/run\/[0-9A-Z]{26}\/a\d+\//.test(k));
      assert.deepEqual(strays.filter((k) => !deadAttempt.includes(k)), [], 'no stray objects');
      // TODO(lead): strict once the dead-attempt cleanup (issue 13 item 6, helper "ops") is merged:
      // assert.deepEqual(deadAttempt, [], 'no files of dead attempts after housekeeping');
      if (deadAttempt.length) tc.diagnostic(`files of dead attempts left in the bucket (cleanup pending): ${deadAttempt.join(', ')}`);
      await pg.end();

      const ms = (n: number) => `${(n / 1000).toFixed(1)} s`;
      tc.diagnostic(
        `chaos figures: jobs ${JOBS}, acknowledged ${ids.length}, unacknowledged ${unacknowledged.length} (${unackStored.length} of them stored and completed), ` +
          `kills: 1 API (at ${ms(apiKilledAt - clusterUp)}) + 1 worker holding ${reclaim.held} ticket(s), reclaimed after ${reclaim.reclaimMs.length ? `${ms(Math.min(...reclaim.reclaimMs))}–${ms(Math.max(...reclaim.reclaimMs))}` : 'n/a'} (lease ${ms(LEASE_MS)}), ` +
          `duplicates 0, lost ${lost.length}, redelivered tickets ${rows.filter((r) => r.redeliveries > 0).length}, repeated webhook deliveries ${repeats}, ` +
          `dead-attempt objects ${deadAttempt.length}, run ${ms(doneAt - clusterUp)}, whole test ${ms(Date.now() - began)}`,
      );
    } finally {
      for (const m of members) await kill(m);
      await receiver.close();
      await fresh.cleanup();
      await bucket.remove();
    }
  });
});
