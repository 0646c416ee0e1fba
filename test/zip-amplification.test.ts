import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { it, type TestContext } from 'node:test';
import { setupProject } from './helpers/project.js';
import { ServeProcess } from './helpers/serve-process.js';
import { freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

const MiB = 1024 * 1024;

/** 255 entries of exactly 1 MiB of zeros beside a small data.xml: about 290 KB on the wire, 255 MiB inflated. */
let bomb: Promise<Buffer> | undefined;
function zeroBomb(): Promise<Buffer> {
  const zeros = Buffer.alloc(MiB);
  const files: Record<string, Buffer | string> = { 'data.xml': '<data><item><title>zeros</title></item></data>' };
  for (let i = 0; i < 255; i++) files[`zeros/${String(i).padStart(3, '0')}.bin`] = zeros;
  bomb ??= zipOf(files);
  return bomb;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeEachStore('ZIP intake amplification', (kind) => {
  /** Posts four bombs at once to an api process and checks the answers, its memory and /healthz. */
  const fourAtOnce = async (t: TestContext, env: Record<string, string>, expect: 'refused' | 'accepted') => {
    const fresh = await freshSettings(kind);
    const api = await ServeProcess.start({ ...fresh.env, ...env }, ['--role', 'api']);
    try {
      const tokens = await setupProject(api);
      const zip = await zeroBomb();
      const post = (body: Buffer) =>
        api.fetch('/rest/tenants/acme/projects/shop/renderpdf', { method: 'POST', token: tokens.jobs, body, headers: { 'content-type': 'application/zip' } });
      // Warm up the intake path (a refused ZIP loads the same modules) before measuring idle.
      assert.equal((await post(Buffer.from('not a zip'))).status, 400);
      await pause(200);
      const idle = api.memory().rss;

      let sampling = true;
      let sampled = idle;
      let slowestHealth = 0;
      const sampler = (async () => {
        while (sampling) {
          sampled = Math.max(sampled, api.memory().rss);
          await pause(10);
        }
      })();
      const prober = (async () => {
        while (sampling) {
          const started = performance.now();
          const res = await fetch(`${api.url}/healthz`);
          await res.arrayBuffer();
          slowestHealth = Math.max(slowestHealth, performance.now() - started);
          await pause(50);
        }
      })();
      const results = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const started = performance.now();
          const res = await post(zip);
          const body = await res.text();
          return { status: res.status, ms: Math.round(performance.now() - started), body };
        }),
      );
      // Memory that stays after the requests counts as well as the spike during them.
      await pause(500);
      sampling = false;
      await Promise.all([sampler, prober]);
      const { rss, peak } = api.memory();
      const highest = Math.max(sampled, peak, rss);
      t.diagnostic(
        `idle ${Math.round(idle / MiB)} MiB, peak ${Math.round(highest / MiB)} MiB (+${Math.round((highest - idle) / MiB)}), after ${Math.round(rss / MiB)} MiB, ` +
          `slowest /healthz ${Math.round(slowestHealth)} ms, answers ${results.map((r) => `${r.status} in ${r.ms} ms`).join(', ')}`,
      );

      assert.ok(results.every((r) => (expect === 'refused' ? r.status !== 202 : r.status === 202 || r.status === 503)), `expected ${expect}`);
      for (const r of results) {
        if (r.status === 400 || r.status === 413) {
          assert.ok(r.ms < 10_000, `refused only after ${r.ms} ms`);
          assert.match(r.body, /compression ratio|expands|uncompressed/, r.body);
        } else if (r.status === 503) {
          assert.match(r.body, /too many ZIP uploads/, r.body);
        } else {
          assert.equal(r.status, 202, r.body);
          // Reported above; bounded loosely here because a loaded CI machine delays any request.
          assert.ok(slowestHealth < 5000, `/healthz took ${Math.round(slowestHealth)} ms while a ZIP was accepted`);
        }
      }
      // Refused or accepted, the API process must not balloon (main grew by about 250 MiB per ZIP).
      assert.ok(highest - idle < 300 * MiB, `RSS grew from ${Math.round(idle / MiB)} MiB to ${Math.round(highest / MiB)} MiB`);
      if (results.every((r) => r.status !== 202)) {
        const open = (await (await api.fetch('/rest/tenants/acme/projects/shop/tickets', { token: tokens.jobs })).json()) as string[];
        assert.deepEqual(open, [], 'a refused ZIP leaves no ticket');
      }
    } finally {
      await api.stop('SIGKILL');
      await fresh.cleanup();
    }
  };

  it('four ZIPs of 255 × 1 MiB zeros at once: each refused within 10 s, the API process stays small', (t) => fourAtOnce(t, {}, 'refused'));

  it('the same four with the ratio limit lifted: accepted while the API process stays within +300 MB and /healthz answers in 500 ms', (t) =>
    fourAtOnce(t, { PRESSROOM_ZIP_MAX_RATIO: '2000' }, 'accepted'));
});
