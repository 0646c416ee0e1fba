// Section `soak` (not in the default run): 20 000 asynchronous data sheets in waves of 1000 on
// one service process; after each wave has completed, the PSS of the whole process tree, and
// the CPU per ticket over that wave of the service process and of its render processes. The
// service does not leak when the last figure is within 10 % of the figure at 2000 tickets. The
// CPU shows a long-running server's, which the `pdf` section's 600 tickets on a fresh one do not
// (V8 settles over thousands).
import { sheetZip } from './documents.js';
import { submitAll } from './api.js';
import { cpuSince, mib, treeCpu, treeMemory } from './procfs.js';
import { PeakMemory } from './peak-memory.js';
import { startBenchServer } from './server-process.js';
import { renderEnv, SHEET_QUERY, sheetProject, warmUp, type BenchContext } from './sheet-bench.js';

export interface SoakResults {
  tickets: number;
  seconds: number;
  docsPerSec: number;
  /**
   * PSS and RSS of the process tree (MiB) after every 1000 completed tickets, and the PSS of
   * the service process alone (what the tree holds beyond it is the render processes'); CPU of
   * the service process (all its threads, not the render processes) per ticket of that wave,
   * and of its render processes: when both rise together, the machine slowed, not the service.
   */
  series: { tickets: number; pssMiB: number; serverPssMiB: number; rssMiB: number; processes: number; serverCpuMsPerTicket: number; renderCpuMsPerTicket: number }[];
  lastOfAt2000: number;
  peak: ReturnType<typeof mib>;
  /** Render processes recycled during the run (grown, or their memory floor rose), from /metrics. */
  renderRecycled?: number;
}

export async function soakBench(b: BenchContext, tickets = 20_000, wave = 1000): Promise<void> {
  const server = await startBenchServer(renderEnv(b.cores));
  const pid = server.child.pid!;
  const peak = new PeakMemory(() => [pid], 500).start();
  const series: SoakResults['series'] = [];
  try {
    const client = await sheetProject(server.url);
    await warmUp(client, b.cores);
    const started = performance.now();
    for (let done = 0; done < tickets; done += wave) {
      const cpu0 = treeCpu(pid);
      const bodies = Array.from({ length: wave }, (_, i) => sheetZip(done + i));
      const answers = await submitAll(client, wave, 8, (i) => bodies[i]!, SHEET_QUERY);
      const bad = answers.filter((a) => a.status !== 202);
      if (bad.length) throw new Error(`${bad.length} submissions were not accepted (first: ${bad[0]!.status})`);
      await client.waitIdle();
      await client.expectRendered(answers.flatMap((a) => a.tickets), 5);
      const cpu = cpuSince(pid, cpu0);
      const serverCpuMsPerTicket = +((1000 * cpu.self) / wave).toFixed(2);
      const renderCpuMsPerTicket = +((1000 * cpu.children) / wave).toFixed(2);
      const m = treeMemory(pid);
      series.push({ tickets: done + wave, pssMiB: Math.round(m.pss), serverPssMiB: Math.round(m.rootPss), rssMiB: Math.round(m.rss), processes: m.processes, serverCpuMsPerTicket, renderCpuMsPerTicket });
      const seconds = (performance.now() - started) / 1000;
      console.error(`soak ${String(done + wave).padStart(6)} tickets  PSS ${Math.round(m.pss)} MiB (service ${Math.round(m.rootPss)})  RSS ${Math.round(m.rss)} MiB  ${m.processes} processes  service CPU ${serverCpuMsPerTicket} ms/ticket (render ${renderCpuMsPerTicket})  ${seconds.toFixed(0)} s`);
    }
    const seconds = (performance.now() - started) / 1000;
    const at2000 = series.find((s) => s.tickets === 2 * wave) ?? series[0]!;
    b.results.soak = {
      tickets,
      seconds: +seconds.toFixed(1),
      docsPerSec: +(tickets / seconds).toFixed(1),
      series,
      lastOfAt2000: +(series.at(-1)!.pssMiB / at2000.pssMiB).toFixed(3),
      peak: mib(peak.stop()),
      renderRecycled: await recycledRenderProcesses(server.url),
    } satisfies SoakResults;
  } finally {
    peak.stop();
    await server.stop();
  }
}

/** The service's count of recycled Typst processes (pressroom_engine_processes_replaced_total). */
async function recycledRenderProcesses(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^pressroom_engine_processes_replaced_total\{engine="typst",reason="recycled"\} (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}
