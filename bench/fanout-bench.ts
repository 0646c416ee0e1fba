import { fanoutItem, partRaw, partTemplate } from './documents.js';
import { mib, PeakMemory } from './procfs.js';
import { rawThroughput } from './raw-typst.js';
import { startBenchServer } from './server-process.js';

/**
 * A 1000-part fanout with aggregate, end to end: submit, render every part (bench/templates/
 * part.typ), merge. Beside it, raw Typst's time for the same parts on as many processes.
 */
export async function fanoutBench(cores: number, parts = 1000): Promise<Record<string, unknown>> {
  const raw = await rawThroughput(await partRaw(), Array.from({ length: parts }, (_, i) => `<data>${fanoutItem(i)}</data>`), cores, 3000);
  const rawSeconds = +(parts / raw.docsPerSec).toFixed(2);
  const server = await startBenchServer({ PRESSROOM_RENDER_THREADS: String(cores) });
  const peak = new PeakMemory(() => [server.child.pid!]);
  try {
    const base = server.url;
    const form = (project: string, scope: string, tenant: string) =>
      fetch(`${base}/auth/${tenant}/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ username: 'admin', password: 'bench-admin-pw', project, scope }).toString(),
      }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);
    const op = { authorization: `Bearer ${await form('admin', 'admin', 'system')}`, accept: 'application/json' };
    await fetch(`${base}/rest/tenants?name=acme`, { method: 'POST', headers: op });
    await fetch(`${base}/rest/tenants/acme/projects?name=fan`, { method: 'POST', headers: op });
    const admin = { authorization: `Bearer ${await form('fan', 'admin', 'acme')}`, accept: 'application/json' };
    await fetch(`${base}/rest/repository/files/tenants/acme/projects/fan/restapi/config.ion`, {
      method: 'PUT',
      headers: { ...admin, 'content-type': 'application/octet-stream' },
      body: '{ fanout: { enabled: true, itemAttribute: "" }, aggregate: { enabled: true }, documentTemplate: "part" }',
    });
    await fetch(`${base}/rest/repository/files/tenants/acme/projects/fan/master-documents/part.typ`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/octet-stream' }, body: partTemplate });
    const items = Array.from({ length: parts }, (_, i) => fanoutItem(i)).join('');
    const body = `<data>${items}</data>`;
    peak.start();
    const started = performance.now();
    const res = await fetch(`${base}/rest/tenants/acme/projects/fan/renderpdf`, { method: 'POST', headers: { ...admin, 'content-type': 'application/xml' }, body });
    const result = (await res.json()) as { tickets: unknown[]; aggregate: { id: string } };
    const intakeMs = performance.now() - started;
    for (;;) {
      const s = (await (await fetch(`${base}/rest/tenants/acme/projects/fan/tickets/${result.aggregate.id}/status`, { headers: admin })).json()) as { complete: boolean; status: string; processingPages: number };
      if (s.complete) {
        return {
          parts: result.tickets.length,
          intakeMs: Math.round(intakeMs),
          endToEndSeconds: +((performance.now() - started) / 1000).toFixed(2),
          rawSeconds,
          status: s.status,
          mergedPages: s.processingPages,
          memory: mib(peak.stop()),
        };
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    peak.stop();
    await server.stop();
  }
}
