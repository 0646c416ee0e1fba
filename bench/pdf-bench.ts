import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ZipFile } from 'yazl';
import { tinyPng } from '../test/helpers/png.js';

/** The benchmark page: title, price, a 5-item list, a 10-row table and one ~50 KB PNG. */
export function benchData(): { xml: string; png: Buffer } {
  const list = ['ground coffee', 'milk jug', 'descaler', 'filter', 'cup set'].map((x) => `<feature>${x}</feature>`).join('');
  const rows = Array.from({ length: 10 }, (_, i) => `<row><sku>SKU-${100 + i}</sku><name>Part ${i + 1}</name><qty>${i + 1}</qty><price>${(9.5 * (i + 1)).toFixed(2)}</price></row>`).join('');
  const xml = `<data><item id="EM-2000"><title>Espresso machine EM-2000</title><price>249.90</price><features>${list}</features><parts>${rows}</parts><image>images/photo.png</image></item></data>`;
  let png = tinyPng(130, 130, true);
  for (let side = 130; png.length < 50_000; side += 2) png = tinyPng(side, side, true);
  return { xml, png };
}

/** The benchmark page as a ZIP body (data.xml + images/photo.png). */
export async function benchZip(): Promise<Buffer> {
  const { xml, png } = benchData();
  const z = new ZipFile();
  z.addBuffer(Buffer.from(xml), 'data.xml');
  z.addBuffer(png, 'images/photo.png', { compress: false });
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const rawWorker = `
const { parentPort, workerData } = require('node:worker_threads');
const { NodeCompiler } = require('@myriaddreamin/typst-ts-node-compiler');
const W = '/pressroom-job';
const c = NodeCompiler.create({ workspace: W });
for (const [p, b] of workerData.files) c.mapShadow(p, Buffer.from(b));
const times = [];
const end = Date.now() + workerData.ms;
let n = 0;
// warm-up
c.pdf(c.compile({ mainFilePath: workerData.main, inputs: workerData.inputs }).result, { pdfTags: false });
while (Date.now() < end) {
  const t = performance.now();
  const doc = c.compile({ mainFilePath: workerData.main, inputs: workerData.inputs }).result;
  c.pdf(doc, { pdfTags: false });
  times.push(performance.now() - t);
  n++;
}
parentPort.postMessage({ n, times });
`;

/** Raw Typst: the same files compiled in a loop on `threads` worker threads, no service around it. */
export async function rawTypst(files: [string, Buffer][], main: string, inputs: Record<string, string>, threads = availableParallelism(), ms = 5000): Promise<{ docsPerSec: number; p50: number }> {
  const results = await Promise.all(
    Array.from({ length: threads }, () => {
      const w = new Worker(rawWorker, { eval: true, workerData: { files, main, inputs, ms } });
      return new Promise<{ n: number; times: number[] }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      }).finally(() => void w.terminate());
    }),
  );
  const total = results.reduce((s, r) => s + r.n, 0);
  const times = results.flatMap((r) => r.times).sort((a, b) => a - b);
  return { docsPerSec: total / (ms / 1000), p50: times[Math.floor(times.length / 2)]! };
}
