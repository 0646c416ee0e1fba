// Operations an operator can see: the queue, step, webhook, engine and blob series on /metrics
// (API processes, and a worker's own PRESSROOM_METRICS_PORT), one log line per step, and a data
// folder only the service can read.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { FileBlobStore } from '../src/blobs/index.js';
import { countBlobErrors, ServiceMetrics } from '../src/metrics/index.js';
import { startServer, type Server } from '../src/server.js';
import { testClock } from './helpers/clock.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

/** The value of one series in Prometheus text, or undefined when it is not there. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return undefined;
}

const grid = '<data><item id="A-1"><title>Metrics sheet</title></item></data>';

describeEachStore('operations: metrics and step logs', (kind) => {
  const clock = testClock();
  let api: TestServer;
  let worker: Server | null = null;
  let receiver: Receiver;
  let tokens: { jobs: string; admin: string };
  const ids: string[] = [];
  const logLines: Record<string, unknown>[] = [];
  before(async () => {
    receiver = await startReceiver((req) => (req.url.startsWith('/fail') ? { status: 500 } : {}));
    api = await startTestServer(kind, { role: 'api', allowPrivateAddresses: ['127.0.0.1'] }, { now: clock.now });
    tokens = await setupProject(api);
  });
  after(async () => {
    await worker?.stop();
    await api.close();
    await receiver.close();
  });

  it('shows the queue by state and next step, and the age of the oldest due ticket, on the API', async () => {
    await putFile(api, tokens.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '#let x = (1, 2\n');
    ids.push(...(await submit(api, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${receiver.url}/ok/{ticket}`)}` })));
    ids.push(...(await submit(api, tokens.jobs, grid, { query: `callback=${encodeURIComponent(`${receiver.url}/fail/{ticket}`)}` })));
    ids.push(...(await submit(api, tokens.jobs, grid, { query: 'documentTemplate=broken' })));
    // No worker runs yet: three tickets wait. The clock moves on 42 s.
    clock.advance(42_000);
    const text = await (await api.fetch('/metrics', { headers: { accept: 'text/plain' } })).text();
    assert.equal(series(text, 'pressroom_tickets', { state: 'due', next: 'renderpdf' }), 3, text);
    const age = series(text, 'pressroom_oldest_due_ticket_age_seconds')!;
    assert.ok(age >= 42 && age < 600, `oldest due ticket age ${age}`);
    assert.ok(series(text, 'pressroom_http_request_duration_seconds_count', { route: '/rest/tenants/:tenant/projects/:project/renderpdf' })! >= 3, 'HTTP series');
  });

  it("counts a worker's steps, outcomes, webhook attempts and engine slots on its metrics port, and logs each step once", async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });
    worker = await startServer({ ...api.settings, role: 'worker', metricsPort: 0, renderThreads: 1, pollMs: 50 }, { now: clock.now, logger });
    assert.ok(worker.metricsUrl, 'the worker listens for scrapes');
    const done = await Promise.all(ids.map((id) => waitComplete(api, tokens.jobs, id)));
    assert.deepEqual(done.map((s) => s.status), ['callback.succeeded', 'callback.failed', 'renderpdf.failed']);
    const text = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
    assert.equal(series(text, 'pressroom_step_outcomes_total', { step: 'renderpdf', outcome: 'succeeded', error_code: '' }), 2, text);
    assert.equal(series(text, 'pressroom_step_outcomes_total', { step: 'renderpdf', outcome: 'failed', error_code: '422' }), 1, text);
    assert.equal(series(text, 'pressroom_step_duration_seconds_count', { step: 'renderpdf', target: 'pdf' }), 3);
    assert.equal(series(text, 'pressroom_webhook_attempts_total', { step: 'callback', outcome: 'delivered' }), 1);
    assert.ok(series(text, 'pressroom_webhook_attempts_total', { step: 'callback', outcome: 'failed' })! >= 1);
    assert.equal(series(text, 'pressroom_engine_slots', { engine: 'typst', state: 'busy' }), 0);
    assert.ok(series(text, 'pressroom_engine_slots', { engine: 'typst', state: 'idle' })! >= 1, text);
    assert.equal(series(text, 'pressroom_tickets', { state: 'due', next: 'renderpdf' }), undefined, 'nothing waits any more');
    assert.equal((await fetch(`${worker.metricsUrl}/healthz`)).status, 200);

    const steps = logLines.filter((l) => l.step === 'renderpdf' && typeof l.outcome === 'string');
    assert.equal(steps.length, 3, JSON.stringify(steps));
    const failed = steps.find((l) => l.outcome === 'failed')!;
    assert.equal(failed.errorCode, '422');
    assert.equal(failed.tenant, 'acme');
    assert.equal(failed.project, 'shop');
    assert.match(String(failed.ticket), /^[0-9A-Z]{26}$/);
    assert.ok(typeof failed.durationMs === 'number' && typeof failed.queuedMs === 'number');
    assert.ok(steps.some((l) => l.outcome === 'succeeded'));
    const all = JSON.stringify(logLines);
    assert.ok(!all.includes(tokens.jobs) && !all.includes(tokens.admin), 'no token in a log line');
  });

  it('keeps the data folder and the database readable by the service alone', { skip: kind === 'postgres' ? 'the SQLite file only' : false }, async () => {
    assert.equal((await stat(api.settings.dataDir)).mode & 0o777, 0o700);
    assert.equal((await stat(join(api.settings.dataDir, 'pressroom.db'))).mode & 0o777, 0o600);
    assert.equal((await stat(join(api.settings.dataDir, 'pressroom.db-wal'))).mode & 0o777, 0o600);
  });
});

describe('blob store errors', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-blob-errors-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('counts failed operations by name, not missing keys, and passes the error on', async () => {
    // A regular file where the store's folder should be: every write fails.
    await writeFile(join(dir, 'not-a-folder'), 'x');
    const metrics = new ServiceMetrics();
    const store = countBlobErrors(new FileBlobStore(join(dir, 'not-a-folder')), metrics);
    await assert.rejects(store.put('jobs/a/b/c/file.pdf', Buffer.from('pdf')));
    await assert.rejects(store.put('jobs/a/b/c/other.pdf', Buffer.from('pdf')));
    // A missing key on a working store is an answer, not a failure.
    const working = countBlobErrors(new FileBlobStore(join(dir, 'blobs')), metrics);
    assert.equal(await working.get('missing/key'), undefined);
    const text = await metrics.registry.metrics();
    assert.equal(series(text, 'pressroom_blob_errors_total', { op: 'put' }), 2, text);
    assert.equal(series(text, 'pressroom_blob_errors_total', { op: 'get' }), undefined);
  });
});
