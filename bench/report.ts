// The summary of a run: one line per figure with its target and ok / MISS, read from the
// results object the sections filled. `--check` fails the run on any MISS (or a section error).
import type { CatalogueResults } from './catalogue-bench.js';
import type { FanoutResults } from './fanout-bench.js';
import type { FloorResults } from './floor-bench.js';
import type { IntakeResults } from './intake-bench.js';
import type { ScaleResults } from './scale-bench.js';
import type { AsyncRun, Bracket, SheetResults } from './sheet-bench.js';
import type { SoakResults } from './soak-bench.js';

export interface Figure {
  name: string;
  text: string;
  /** The target as written, or '' for a figure shown for context. */
  target: string;
  /** ok / MISS, SKIP (not measured, with the reason as text), ERROR (the section failed), '' (no target). */
  verdict: 'ok' | 'MISS' | 'SKIP' | 'ERROR' | '';
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const judge = (pass: boolean): Figure['verdict'] => (pass ? 'ok' : 'MISS');

type R = Record<string, unknown>;

/** A failed ticket's reason without the request around it: `errorCode 507: render stopped: …`. */
const brief = (failed = '?') => /errorCode (\w+)\): (.*)$/.exec(failed)?.slice(1).join(': ') ?? failed;

/** The figures of the sections that ran, in the order of issue 12. */
export function figures(results: R, cores: number): Figure[] {
  const out: Figure[] = [];
  const add = (name: string, text: string, target = '', verdict: Figure['verdict'] = '') => out.push({ name, text, target, verdict });
  // A figure measured right before and right after a run that moved more than 10 %: the machine changed speed meanwhile.
  const driftNote = (b: Bracket, what: string, across: string, ratio: string) => {
    if (Math.abs(b.drift) > 0.1) add('note', `${what} changed by ${Math.round(100 * Math.abs(b.drift))} % across ${across}: the ${ratio} ratio carries about that much uncertainty`);
  };

  const raw = results.rawTypst as SheetResults['rawTypst'] | undefined;
  if (raw) {
    const around = (b: Bracket) => `${f1(b.before)} before, ${f1(b.after)} after`;
    add('raw Typst', `${f1(raw.docsPerSec)} docs/s in ${raw.processes} processes (CPU ${f1(raw.cpuMsPerDoc)} ms/doc); one at a time p50 ${f1(raw.latencyP50Ms)} ms, p95 ${f1(raw.latencyP95Ms)} ms`);
    // Results of a version without brackets have one raw run only.
    const b = raw.brackets as SheetResults['rawTypst']['brackets'] | undefined;
    if (b) {
      add('raw around', `docs/s ${around(b.docsPerSec)} the async run; p50 ms ${around(b.latencyP50Ms)} the sync run (the lines above use the means)`);
      const names = { docsPerSec: 'throughput', latencyP50Ms: 'p50 latency', latencyP95Ms: 'p95 latency' } as const;
      const [worstName, worst] = (Object.entries(b) as [keyof typeof names, Bracket][]).reduce((w, e) => (Math.abs(e[1].drift) > Math.abs(w[1].drift) ? e : w));
      if (Math.abs(worst.drift) > 0.1) add('note', `raw Typst's ${names[worstName]} changed by ${Math.round(100 * Math.abs(worst.drift))} % across one service run (${f1(worst.before)} → ${f1(worst.after)}): the machine changed speed, so the figures compared with it carry about that much uncertainty`);
    }
  }
  const a = results.async as SheetResults['async'] | undefined;
  if (a && raw) {
    add('async', `${f2(a.ofRaw)} of raw Typst (${f1(a.docsPerSec)} vs ${f1(raw.docsPerSec)} docs/s, ${cores} cores)`, '≥ 0.85', judge(a.ofRaw >= 0.85));
    const load = (m: SheetResults['rawTypst']['machine']) => `other processes ${f1(m.otherCores)}, steal ${f1(m.stealCores)}`;
    add('machine', `cores busy outside the measured processes: raw Typst run ${load(raw.machine)}; async run ${load(a.machine)}, bench client ${f1(a.machine.benchCores)}`);
    add('service CPU', `${f2(a.serverCpuMsPerTicket)} ms/ticket in the service process (render processes ${f1(a.renderCpuMsPerTicket)} ms, raw Typst ${f1(raw.cpuMsPerDoc)} ms/doc)`, '≤ 1.5 ms', judge(a.serverCpuMsPerTicket <= 1.5));
  }
  const s = results.sync as SheetResults['sync'] | undefined;
  if (s && raw) {
    add('sync p50', `${f1(s.p50Ms)} ms = raw ${f1(raw.latencyP50Ms)} + ${f1(s.overP50Ms)} ms (${s.requests} requests one at a time)`, '≤ raw + 3 ms', judge(s.overP50Ms <= 3));
    add('sync p95', `${f1(s.p95Ms)} ms = raw ${f1(raw.latencyP95Ms)} + ${f1(s.overP95Ms)} ms`, '≤ raw + 6 ms', judge(s.overP95Ms <= 6));
  }
  const m = results.memory as SheetResults['memory'] | undefined;
  if (m) add('memory', `peak PSS ${m.pssMiB} MiB of the process tree (server ${m.serverPssMiB}, RSS sum ${m.rssMiB}, ${m.processes} processes)`, '≤ 350 MiB', judge(m.pssMiB <= 350));
  // The same server once V8 has optimised its hot code: context for the lines above, no target.
  const w = results.warm as SheetResults['warm'] | undefined;
  if (w && raw) {
    add('warm', `after ${w.afterTickets} tickets: async ${f2(w.async.ofRaw)} of raw Typst (${f1(w.async.docsPerSec)} docs/s), service CPU ${f2(w.async.serverCpuMsPerTicket)} ms/ticket (render processes ${f1(w.async.renderCpuMsPerTicket)} ms), sync p50 raw + ${f1(w.sync.overP50Ms)} ms, p95 raw + ${f1(w.sync.overP95Ms)} ms; the raw figures are those above`);
  }
  // What an HTTP process feeding the same render pool reaches with nothing stored: context for the lines above.
  const fl = results.floor as FloorResults | undefined;
  if (fl) {
    add('floor', `${f2(fl.async.ofRaw)} of raw Typst (${f1(fl.async.docsPerSec)} vs ${f1((fl.raw.docsPerSec.before + fl.raw.docsPerSec.after) / 2)} docs/s) storing nothing: HTTP and the render pool only; its process ${f2(fl.async.serverCpuMsPerTicket)} ms/ticket, render processes ${f1(fl.async.renderCpuMsPerTicket)} ms against raw ${f1(fl.raw.cpuMsPerDoc)} ms/doc`);
    add('floor sync', `p50 ${f1(fl.sync.p50Ms)} ms = raw + ${f1(fl.sync.overP50Ms)} ms, p95 ${f1(fl.sync.p95Ms)} ms = raw + ${f1(fl.sync.overP95Ms)} ms (${fl.sync.requests} requests one at a time)`);
  }

  const pg = results.postgres as ScaleResults | undefined;
  if (pg) {
    if ('skipped' in pg) {
      add('worker 2', `skipped: ${pg.skipped}`, '≥ 0.97', 'SKIP');
      add('postgres', `skipped: ${pg.skipped}`, '≥ 0.85', 'SKIP');
    } else {
      // Results of a version without `oneAround` set the two processes against the run before only.
      const oa = pg.twoPostgres.oneAround as Bracket | undefined;
      const one = oa ? `${f1((oa.before + oa.after) / 2)} docs/s; one process ${f1(oa.before)} before, ${f1(oa.after)} after` : `${f1(pg.onePostgres.docsPerSec)} docs/s`;
      add('worker 2', `${f2(pg.twoPostgres.ofOne)} of one process (${f1(pg.twoPostgres.docsPerSec)} vs ${one}; PostgreSQL, SQLite: one process only)`, '≥ 0.97', judge(pg.twoPostgres.ofOne >= 0.97));
      if (oa) driftNote(oa, "one PostgreSQL process's async figure", "the two processes' run", 'worker 2');
      const sa = pg.sqlite.around;
      add('postgres', `${f2(pg.onePostgres.ofSqlite)} of SQLite (${f1(pg.onePostgres.docsPerSec)} vs ${f1(pg.sqlite.docsPerSec)} docs/s; SQLite ${f1(sa.before)} before, ${f1(sa.after)} after)`, '≥ 0.85', judge(pg.onePostgres.ofSqlite >= 0.85));
      driftNote(sa, "SQLite's async figure", 'the PostgreSQL runs', 'postgres');
      const load = (m: AsyncRun['machine']) => `PostgreSQL ${f1(m.postgresCores)}, other processes ${f1(m.otherCores)}`;
      add('machine', `cores busy outside the service: one process ${load(pg.onePostgres.machine)}; two ${load(pg.twoPostgres.machine)}`);
    }
  }

  const c = results.catalogue as CatalogueResults | undefined;
  if (c) {
    if (c.failed || c.ofRaw === undefined) {
      add('catalogue', `${c.products} products failed after ${f1(c.seconds)} s: ${brief(c.failed)}`, '≤ 1.15 × raw', 'MISS');
      const r = c.raisedCeiling;
      if (r?.failed) add('', `with PRESSROOM_RENDER_MAX_MEMORY_MB=${r.env.PRESSROOM_RENDER_MAX_MEMORY_MB}: failed too: ${brief(r.failed)}`);
      else if (r) add('', `with PRESSROOM_RENDER_MAX_MEMORY_MB=${r.env.PRESSROOM_RENDER_MAX_MEMORY_MB}: ${f2(r.ofRaw!)} × raw (${f2(r.seconds)} vs ${f2(c.raw!.seconds)} s, ${r.pages} pages, peak PSS ${r.memory.pssMiB} MiB; CPU: render ${f1(r.cpu.children)} + service ${f1(r.cpu.self)} vs raw ${f1(c.raw!.cpuSeconds)} s)`);
    } else add('catalogue', `${f2(c.ofRaw)} × raw Typst (${f2(c.seconds)} vs ${f2(c.raw!.seconds)} s, ${c.pages} pages, ${c.products} products; CPU: render ${f1(c.cpu.children)} + service ${f1(c.cpu.self)} vs raw ${f1(c.raw!.cpuSeconds)} s)`, '≤ 1.15 × raw', judge(c.ofRaw <= 1.15));
    const cb = c.raw?.bracket;
    if (cb) {
      add('raw around', `catalogue ${f2(cb.before)} s before, ${f2(cb.after)} s after the service's (the line above uses the mean)`);
      driftNote(cb, "raw Typst's catalogue time", "the service's run", 'catalogue');
    }
    const t = c.rawTuned;
    if (t) add('raw tuned', `raw Typst with the render processes' GLIBC_TUNABLES=${t.env.GLIBC_TUNABLES}, once after the run after: ${f2(t.seconds)} s, peak PSS ${t.pssMiB} MiB${t.serviceOf === undefined ? '' : `; the service ${f2(t.serviceOf)} × that`}`);
    add('catalogue mem', `peak PSS ${c.memory.pssMiB} MiB of the process tree (RSS sum ${c.memory.rssMiB}); raw Typst's process ${c.raw?.memory.pssMiB ?? '?'} MiB`, '≤ 600 MiB', judge(c.memory.pssMiB <= 600));
  }
  const c10 = results.catalogue10k as CatalogueResults | undefined;
  if (c10) {
    const how = c10.failed ? `failed after ${f1(c10.seconds)} s: ${brief(c10.failed)}` : `completed in ${f1(c10.seconds)} s, ${c10.pages} pages`;
    add('catalogue 10k', `${how}; peak PSS ${c10.memory.pssMiB} MiB`, 'completes', judge(!c10.failed));
  }

  const conv = results.convert as R | undefined;
  if (conv) {
    // convertBench() returns { pngP50Ms, jpegP50Ms }; older versions nest them under convertPool.
    const pool = conv.convertPool as R | undefined;
    const png = typeof conv.pngP50Ms === 'number' ? conv.pngP50Ms : (pool?.pngP50Ms as number | undefined);
    const jpeg = typeof conv.jpegP50Ms === 'number' ? conv.jpegP50Ms : (pool?.jpgP50Ms as number | undefined);
    const where = typeof conv.pngP50Ms === 'number' ? '' : ' (pooled MuPDF process)';
    for (const [name, v, t] of [['convert png', png, 25], ['convert jpeg', jpeg, 35]] as const) {
      if (typeof v === 'number') add(name, `p50 ${f1(v)} ms, A4 page at 150 dpi${where}`, `≤ ${t} ms`, judge(v <= t));
      else add(name, 'no figure in convertBench() results', `≤ ${t} ms`, 'ERROR');
    }
  }
  const fan = results.fanout as FanoutResults | undefined;
  if (fan) {
    add('fanout', `${f2(fan.endToEndSeconds)} s end to end, ${fan.parts} parts with aggregate (${fan.status}); raw Typst ${f2(fan.rawSeconds)} s for the same parts (${f2(fan.endToEndSeconds / fan.rawSeconds)} ×)`, '≤ 4 s', judge(fan.endToEndSeconds <= 4 && /succeeded/.test(fan.status)));
    // Results of a version without them have one raw run and no CPU figures.
    if (fan.rawAround) {
      add('raw around', `fanout ${f2(fan.rawAround.before)} s before, ${f2(fan.rawAround.after)} s after the service's (the line above uses the mean)`);
      driftNote(fan.rawAround, "raw Typst's fanout time", "the service's run", 'fanout');
    }
    const c = fan.cpu;
    if (c?.rawMsPerPart !== undefined) {
      add('fanout CPU', `a part: service ${f2(c.serviceMsPerPart)} ms, render processes ${f2(c.renderMsPerPart)} ms (raw Typst ${f2(c.rawMsPerPart)} ms); MuPDF process ${f2(c.mupdfSeconds)} s; ${f2(c.busyCores)} of ${cores} cores busy`);
    }
  }

  const i = results.intake as IntakeResults | undefined;
  if (i) {
    add('intake burst', `202 p99 ${f1(i.p99Ms)} ms (p50 ${f1(i.p50Ms)}, max ${f1(i.maxMs)}); ${i.serverErrors} of ${i.submissions} answered 5xx, ${i.clients} clients`, '≤ 25 ms, no 5xx', judge(i.p99Ms <= 25 && i.serverErrors === 0 && i.otherErrors === 0));
    const iw = i.warm;
    if (iw) add('intake warm', `the same burst on the same server after ${iw.afterSubmissions} submissions: 202 p99 ${f1(iw.p99Ms)} ms (p50 ${f1(iw.p50Ms)}, max ${f1(iw.maxMs)}); ${iw.notAccepted} not answered 202`);
  }
  const soak = results.soak as SoakResults | undefined;
  if (soak) {
    const at2000 = soak.series.find((p) => p.tickets === 2000) ?? soak.series[0]!;
    add('soak', `PSS ${soak.series.at(-1)!.pssMiB} MiB after ${soak.tickets} = ${f2(soak.lastOfAt2000)} × at ${at2000.tickets} (${at2000.pssMiB} MiB)`, '≤ 1.10 ×', judge(soak.lastOfAt2000 <= 1.1));
    add('soak series', soak.series.map((p) => p.pssMiB).join(' '));
    if (soak.renderRecycled !== undefined) add('soak recycled', `render processes recycled during the run: ${soak.renderRecycled}`);
    // Which process grew: the service's own PSS per wave (results of older versions lack it).
    const server = soak.series.map((p) => p.serverPssMiB as number | undefined).filter((x) => x !== undefined);
    if (server.length) add('soak service', `PSS of the service process alone: ${server.join(' ')}`);
    // Results of a version without the CPU series have no such figure.
    const cpu = soak.series.map((p) => p.serverCpuMsPerTicket as number | undefined).filter((x) => x !== undefined);
    if (cpu.length) add('soak CPU', `service process, ms per ticket of each wave: ${cpu.map(f2).join(' ')}`);
    const render = soak.series.map((p) => p.renderCpuMsPerTicket as number | undefined).filter((x) => x !== undefined);
    if (render.length) add('soak render', `render processes, ms per ticket of each wave: ${render.map(f2).join(' ')}`);
  }

  const pptx = results.pptx as { msPerDeck: number; cpuMsPerDeck: number } | undefined;
  if (pptx) add('pptx', `${f1(pptx.msPerDeck)} ms per 20-slide deck (CPU ${f1(pptx.cpuMsPerDeck)} ms)`);
  const xslt = results.xslt as { p50Ms: number; compileAndTransformMs: number } | undefined;
  if (xslt) add('xslt', `cached transform p50 ${f2(xslt.p50Ms)} ms (first compile ${f1(xslt.compileAndTransformMs)} ms)`);
  // Other load on the machine: say so when it was large enough to move the ratios.
  const loads = [raw?.machine, a?.machine, ...(pg && !('skipped' in pg) ? [pg.onePostgres.machine, pg.twoPostgres.machine] : [])].filter((x) => x !== undefined);
  const worst = Math.max(0, ...loads.map((x) => x.otherCores));
  if (worst > 0.25) add('note', `other processes kept up to ${f1(worst)} of ${cores} cores busy during the runs: the figures are disturbed; measure on a quiet machine`);

  // A section that threw: its figures are missing, and the run fails --check.
  for (const [section, message] of Object.entries((results.errors ?? {}) as Record<string, string>)) {
    add(section, `section failed: ${message.split('\n')[0]!.slice(0, 140)}`, '', 'ERROR');
  }
  return out;
}

/** The summary block: a header line, then one line per figure. */
export function summary(list: Figure[], header: string): string {
  const width = Math.min(100, Math.max(40, ...list.map((x) => x.text.length)));
  const lines = list.map((x) => `${x.name.padEnd(14)}${x.text.padEnd(width)}   ${`${x.target ? `target ${x.target}` : ''}`.padEnd(24)}${x.verdict}`.trimEnd());
  return [header, ...lines].join('\n');
}

export const missed = (list: Figure[]) => list.filter((x) => x.verdict === 'MISS' || x.verdict === 'ERROR');
