// Sections `catalogue` and `catalogue10k`: one big document, a product catalogue (each product a
// picture and a 10-row table, four to a page), as one synchronous ticket end to end, against
// raw Typst compiling the same files once (after a warm-up compile of a small catalogue), right
// before and right after the service.
import { catalogueRaw, catalogueTemplate, catalogueXml, catalogueZip } from './documents.js';
import { ProjectClient } from './api.js';
import { cpuSince, mib, treeCpu } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { rawOnce } from './raw-typst.js';
import { startBenchServer } from './server-process.js';
import { bracket, mean, renderEnv, type BenchContext, type Bracket } from './sheet-bench.js';
import { RENDER_PROCESS_TUNABLES } from '../src/engines/typst/index.js';

interface ServiceRun {
  pages: number | null;
  seconds: number;
  /** CPU seconds of the service process and of its render processes during the ticket. */
  cpu: { self: number; children: number };
  /** Why the ticket did not deliver a PDF; absent when it did. */
  failed?: string;
  memory: ReturnType<typeof mib>;
}

export interface CatalogueResults extends ServiceRun {
  products: number;
  /** Raw Typst: its time (the mean of its runs right before and right after the service's), and the peak memory of its process. */
  raw?: { seconds: number; cpuSeconds: number; pages: number; memory: ReturnType<typeof mib>; bracket?: Bracket };
  ofRaw?: number;
  /**
   * Context: raw Typst once more, after the run after the service's, with the allocator setting
   * the service's render processes get (RENDER_PROCESS_TUNABLES), and the service's time against it.
   */
  rawTuned?: { env: Record<string, string>; seconds: number; pssMiB: number; serviceOf?: number };
  /** When the default settings failed: the same ticket with a higher memory ceiling, for its time. */
  raisedCeiling?: ServiceRun & { env: Record<string, string>; ofRaw?: number };
}

const cpuOf = (c: { self: number; children: number }) => ({ self: +c.self.toFixed(2), children: +c.children.toFixed(2) });

/** The service: a fresh process, warmed with a small catalogue, then the timed one. */
async function throughService(b: BenchContext, products: number, env: Record<string, string> = {}): Promise<ServiceRun> {
  const server = await startBenchServer({ ...renderEnv(b.cores), ...env });
  const peak = new PeakMemory(() => [server.child.pid!]);
  try {
    const client = await ProjectClient.create(server.url, 'acme', 'cat');
    await client.putFile('master-documents/catalogue.typ', catalogueTemplate);
    const query = 'documentTemplate=catalogue';
    // Every render process warmed up with a small catalogue of other data (Typst memoizes per
    // process: the same data twice would make the second render nearly free).
    const small = catalogueZip(catalogueXml(20, 1));
    await Promise.all(Array.from({ length: 2 * b.cores }, () => client.submit(small, query)));
    await client.waitIdle();
    const body = catalogueZip(catalogueXml(products, 0));
    peak.start();
    const cpu0 = treeCpu(server.child.pid!);
    const started = performance.now();
    let ticket: string;
    try {
      ticket = (await client.renderSync(body, query)).ticket;
    } catch (err) {
      const seconds = (performance.now() - started) / 1000;
      return { pages: null, seconds: +seconds.toFixed(2), cpu: cpuOf(cpuSince(server.child.pid!, cpu0)), failed: (err as Error).message.slice(0, 240), memory: mib(peak.stop()) };
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuOf(cpuSince(server.child.pid!, cpu0));
    const memory = mib(peak.stop());
    return { pages: (await client.status(ticket)).processingPages, seconds: +seconds.toFixed(2), cpu, memory };
  } finally {
    peak.stop();
    await server.stop();
  }
}

/** `catalogue`: 1000 products (about 250 pages), service against raw Typst. */
export async function catalogueBench(b: BenchContext, products = 1000): Promise<void> {
  // Raw Typst right before and right after the service's ticket, as the sheet's figures are
  // measured: one raw run a minute away moved this ratio by more than its target's margin.
  const doc = await catalogueRaw();
  const rawRun = () => rawOnce(doc, catalogueXml(20, 1), catalogueXml(products, 0));
  const raw = await rawRun();
  const service = await throughService(b, products);
  const rawAfter = await rawRun();
  const tunedEnv = { GLIBC_TUNABLES: RENDER_PROCESS_TUNABLES };
  const tuned = await rawOnce(doc, catalogueXml(20, 1), catalogueXml(products, 0), tunedEnv);
  const around = bracket(raw.ms / 1000, rawAfter.ms / 1000);
  const rawSeconds = mean(around);
  const result: CatalogueResults = {
    products,
    ...service,
    raw: { seconds: +rawSeconds.toFixed(2), cpuSeconds: +((raw.cpuMs + rawAfter.cpuMs) / 2000).toFixed(2), pages: raw.pages, memory: raw.memory, bracket: around },
    ...(service.failed ? {} : { ofRaw: +(service.seconds / rawSeconds).toFixed(3) }),
    rawTuned: { env: tunedEnv, seconds: +(tuned.ms / 1000).toFixed(2), pssMiB: tuned.memory.pssMiB, ...(service.failed ? {} : { serviceOf: +((1000 * service.seconds) / tuned.ms).toFixed(3) }) },
  };
  if (service.failed) {
    // The figure stays a miss; the time with room to finish still shows where the rest stands.
    const env = { PRESSROOM_RENDER_MAX_MEMORY_MB: '6144', PRESSROOM_RENDER_TIMEOUT_MS: '600000' };
    const again = await throughService(b, products, env);
    result.raisedCeiling = { env, ...again, ...(again.failed ? {} : { ofRaw: +(again.seconds / rawSeconds).toFixed(3) }) };
  }
  b.results.catalogue = result;
}

/** `catalogue10k`: 10 000 products (about 2500 pages) must complete; no raw run (its memory alone would be the figure). */
export async function catalogue10kBench(b: BenchContext): Promise<void> {
  b.results.catalogue10k = { products: 10_000, ...(await throughService(b, 10_000)) } satisfies CatalogueResults;
}
