// The floor under the service's figures: an HTTP server that reads a render request's ZIP, hands
// its files to the service's own Typst pool and answers, with nothing stored: no database, no
// files, no queue, no configuration. What any design of one HTTP process feeding render processes
// on the same cores spends at least; the `floor` section prints it beside the service's figures.
// It runs the built code (dist/), as the benchmark's service does.
//
//   POST /async   202 at once, the render runs behind it
//   POST /sync    the PDF, once rendered
//   GET  /idle    answers once no render is running
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pino from 'pino';
import type * as TypstModule from '../src/engines/typst/index.js';
import type * as ZipModule from '../src/zip/index.js';
import { sheetRaw } from './documents.js';

const dist = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;
const { JOB_ROOT, TypstEngine } = (await import(dist('engines/typst/index.js'))) as typeof TypstModule;
const { readZip } = (await import(dist('zip/index.js'))) as typeof ZipModule;

const doc = await sheetRaw();
// The template and the helper library: the same bytes in every job, as in the service.
const shared = doc.files.filter(([path]) => !path.endsWith('.png')).map(([path, data]) => ({ path, data }));
const engine = new TypstEngine({ size: Number(process.env.PRESSROOM_RENDER_THREADS ?? 2), timeoutMs: 60_000, logger: pino({ level: 'warn' }) });

let running = 0;
let jobs = 0;
const idleWaiters: (() => void)[] = [];

/** The request's data and pictures as a render job, as the render step builds one. */
async function jobOf(body: Buffer): Promise<TypstModule.RenderJob> {
  const entries = await readZip(body, { maxEntries: 100, maxBytes: 64 * 1024 * 1024 });
  const files = entries.flatMap((e) => (e.kind === 'file' ? [{ path: `${JOB_ROOT}/${e.name}`, data: Buffer.from(e.data), ...(e.name === 'data.xml' ? { reusable: false } : {}) }] : []));
  jobs++;
  return { files: [...shared, ...files], main: doc.main, inputs: { ...doc.inputs, ticket: `FLOOR${String(jobs).padStart(21, '0')}`, createdAt: new Date().toISOString() }, pdfTags: false };
}

function render(job: TypstModule.RenderJob): Promise<Buffer> {
  running++;
  return engine
    .render(job)
    .then((out) => out.pdf)
    .finally(() => {
      if (--running === 0) for (const wake of idleWaiters.splice(0)) wake();
    });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (req.method === 'GET' && req.url === '/idle') {
    if (running === 0) res.end();
    else idleWaiters.push(() => res.end());
    return;
  }
  const job = await jobOf(Buffer.concat(chunks));
  if (req.url === '/sync') {
    const pdf = await render(job);
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length }).end(pdf);
    return;
  }
  render(job).catch((err: unknown) => console.error('floor: render failed', err));
  res.writeHead(202, { 'content-type': 'application/json' }).end('{"tickets":[]}');
}

const server = createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    console.error('floor: request failed', err);
    res.writeHead(500).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.close();
  void engine.close().then(() => process.exit(0));
});
