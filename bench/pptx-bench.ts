// PPTX rendering benchmark: a 20-slide deck from the built-in master, rendered in-process.
// `npm run bench` can call pptxBench(); run alone: node --import tsx bench/pptx-bench.ts [decks]
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { builtinMasterPath, renderPptx } from '../src/engines/pptx/index.js';
import { tinyPng } from '../test/helpers/png.js';

/** The benchmark deck: title, then 19 slides cycling bullets, picture, table (10 rows), two columns; notes on each. */
export function pptxBenchInput(): { data: Buffer; resources: Map<string, Buffer> } {
  let png = tinyPng(130, 130, true);
  for (let side = 130; png.length < 50_000; side += 2) png = tinyPng(side, side, true);
  const rows = Array.from({ length: 10 }, (_, i) => `<row><cell>SKU-${100 + i}</cell><cell>Part ${i + 1}</cell><cell>${(9.5 * (i + 1)).toFixed(2)}</cell></row>`).join('');
  const kinds = [
    (n: number) => `<slide layout="Title and Content"><field name="title">Topic ${n}</field><field name="body"><p>First point with <b>bold</b> text</p><p level="2">Detail <i>one</i></p><p level="2">Detail <span color="#C00000">two</span></p><p>Read <a href="https://example.com/${n}">more</a></p></field><notes>Notes for slide ${n}</notes></slide>`,
    (n: number) => `<slide layout="Picture with Caption"><field name="title">Product ${n}</field><field name="pic"><image src="images/photo.png"/></field><field name="Caption">Espresso machine EM-${n}</field><notes>Photo ${n}</notes></slide>`,
    (n: number) => `<slide layout="Title and Content"><field name="title">Parts ${n}</field><field name="body"><table><header><cell>SKU</cell><cell>Name</cell><cell>Price</cell></header>${rows}</table></field><notes>Table ${n}</notes></slide>`,
    (n: number) => `<slide layout="Two Content"><field name="title">Compare ${n}</field><field name="body">Left ${n}</field><field name="body">Right ${n}</field><notes>Compare ${n}</notes></slide>`,
  ];
  const slides = ['<slide layout="Title Slide"><field name="title">Benchmark deck</field><field name="subTitle">20 slides</field></slide>'];
  for (let n = 2; n <= 20; n++) slides.push(kinds[n % kinds.length]!(n));
  return { data: Buffer.from(`<presentation>${slides.join('')}</presentation>`), resources: new Map([['images/photo.png', png]]) };
}

/**
 * Renders the 20-slide deck `decks` times (after a warm-up): mean wall-clock ms per deck,
 * and CPU ms per deck (user + system of this process, zlib threads included), which other
 * load on a shared machine disturbs less.
 */
export async function pptxBench(decks = 50): Promise<{ msPerDeck: number; cpuMsPerDeck: number; slides: number; bytes: number }> {
  const master = readFileSync(builtinMasterPath());
  const { data, resources } = pptxBenchInput();
  const once = () => renderPptx({ master, data, resources, options: {}, log: () => {} });
  let last = await once();
  for (let i = 0; i < 5; i++) await once();
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < decks; i++) last = await once();
  const used = process.cpuUsage(cpu);
  return { msPerDeck: (performance.now() - started) / decks, cpuMsPerDeck: (used.user + used.system) / 1000 / decks, slides: last.slides, bytes: last.pptx.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await pptxBench(Number(process.argv[2] ?? 50));
  console.log(JSON.stringify({ cores: availableParallelism(), ...result, msPerDeck: +result.msPerDeck.toFixed(1), cpuMsPerDeck: +result.cpuMsPerDeck.toFixed(1) }));
}
