// npm run bench: the service against its engine, every figure of issue 12 in one run on this
// machine. Builds dist/ first so the server runs as it does in production. Prints the results
// as JSON (also written to .bench/results.json), then a summary with one line per figure and
// its target. `npm run bench -- pdf catalogue` runs only the sections named; `-- soak` runs the
// 20 000-ticket soak (not in the default run); `--check` exits 1 when a target is missed.
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { catalogue10kBench, catalogueBench } from './catalogue-bench.js';
import { convertBench } from './convert-bench.js';
import { fanoutBench } from './fanout-bench.js';
import { floorBench } from './floor-bench.js';
import { intakeBench } from './intake-bench.js';
import { pptxBench } from './pptx-bench.js';
import { figures, missed, summary } from './report.js';
import { postgresBench } from './scale-bench.js';
import { removeDataFolders, reportDataFolders } from './server-process.js';
import { sheetBench, type BenchContext } from './sheet-bench.js';
import { soakBench } from './soak-bench.js';
import { xsltBench } from './xslt-bench.js';

const cores = availableParallelism();
const results: Record<string, unknown> = { cores, node: process.version, date: new Date().toISOString(), memoryUnit: 'MiB (2^20 bytes)' };
const bench: BenchContext = { cores, results };

/** Sections by name, in the order they run; all but `soak` run by default. */
const sections: Record<string, () => Promise<void>> = {
  pdf: () => sheetBench(bench),
  floor: () => floorBench(bench),
  intake: () => intakeBench(bench),
  postgres: () => postgresBench(bench),
  catalogue: () => catalogueBench(bench),
  catalogue10k: () => catalogue10kBench(bench),
  convert: async () => {
    results.convert = await convertBench();
  },
  fanout: async () => {
    results.fanout = await fanoutBench(cores);
  },
  pptx: async () => {
    results.pptx = await pptxBench(50);
  },
  xslt: async () => {
    results.xslt = await xsltBench();
  },
  soak: () => soakBench(bench),
};
const notByDefault = ['soak'];

const args = process.argv.slice(2);
const check = args.includes('--check');
const wanted = args.filter((a) => a !== '--check');
for (const name of wanted) if (!(name in sections)) throw new Error(`unknown bench section ${name}; known: ${Object.keys(sections).join(', ')} (and --check)`);
const chosen = Object.keys(sections).filter((name) => (wanted.length ? wanted.includes(name) : !notByDefault.includes(name)));

const clock = () => new Date().toISOString().slice(11, 19);
const started = performance.now();
execSync('npm run build --silent', { stdio: 'inherit' });
const durations: Record<string, number> = { build: +((performance.now() - started) / 1000).toFixed(1) };
const errors: Record<string, string> = {};
// The stopped servers' data folders go once every section has run (see removeDataFolders);
// BENCH_KEEP_DATA=1 leaves them, so the next run's figures do not pay for their removal.
process.once('exit', process.env.BENCH_KEEP_DATA ? reportDataFolders : removeDataFolders);
process.once('SIGINT', () => process.exit(130));
for (const name of chosen) {
  const t = performance.now();
  console.error(`[${clock()}] bench ${name} …`);
  try {
    await sections[name]!();
  } catch (err) {
    errors[name] = (err as Error).stack ?? String(err);
    console.error(`[${clock()}] bench ${name} failed: ${errors[name]}`);
  }
  durations[name] = +((performance.now() - t) / 1000).toFixed(1);
  console.error(`[${clock()}] bench ${name} done in ${durations[name]} s`);
}
const total = (performance.now() - started) / 1000;
results.seconds = { ...durations, total: +total.toFixed(1) };
if (Object.keys(errors).length) results.errors = errors;

console.log(JSON.stringify(results, null, 2));
mkdirSync('.bench', { recursive: true });
writeFileSync('.bench/results.json', JSON.stringify(results, null, 2) + '\n');

const list = figures(results, cores);
const header = `pressroom bench ${results.date as string} → ${new Date().toISOString()} (${Math.floor(total / 60)} min ${Math.round(total % 60)} s), ${cores} cores, node ${process.version}; sections: ${chosen.join(' ')}; memory in MiB (2^20 bytes)`;
console.log(`\n${summary(list, header)}`);
const misses = missed(list);
if (check) {
  console.log(misses.length ? `\n--check: ${misses.length} target(s) missed: ${misses.map((m) => m.name).join(', ')}` : '\n--check: every target met');
  process.exitCode = misses.length ? 1 : 0;
}
