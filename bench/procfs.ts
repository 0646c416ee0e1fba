// Linux /proc sampling for the benchmark: memory (PSS, RSS) and CPU time of a process tree.
// Memory is reported in MiB (2^20 bytes) throughout; smaps_rollup counts in kB (KiB).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, nearly always 100). */
export const clockTicks: number = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  comm: string;
  ppid: number;
  /** utime + stime of the process itself (all its threads), in ticks. */
  own: number;
  /** cutime + cstime: children it has waited for, in ticks. */
  reaped: number;
}

function stat(pid: number | string): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), starting at field 3 (state).
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { comm: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // gone
  }
}

function allStats(): Map<number, Stat> {
  const out = new Map<number, Stat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(entry);
    if (s) out.set(Number(entry), s);
  }
  return out;
}

/** Whether the kernel lists a thread's children (CONFIG_PROC_CHILDREN): a few reads instead of every process's stat. */
const childrenListed = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/** The children of `pid`: those of every thread of it, since a child belongs to the thread that started it. */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return []; // gone, or a thread of it ended while we read
  }
}

/** `pid` and all its descendants (children, grandchildren, …) alive now. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  if (childrenListed) {
    for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
    return tree;
  }
  const stats = allStats();
  for (let i = 0; i < tree.length; i++) for (const [p, s] of stats) if (s.ppid === tree[i]) tree.push(p);
  return tree;
}

/**
 * CPU seconds of each live descendant of `pid`, keyed by process id, with the script it runs
 * (the last `.js`/`.ts` argument of its command line, e.g. `typst-child.js`). Processes that
 * ended in between are not here (their time went to their parent's cutime): compare two
 * readings over a window in which the processes of interest live throughout.
 */
export function descendantCpu(pid: number): Map<number, { script: string; seconds: number }> {
  const out = new Map<number, { script: string; seconds: number }>();
  for (const p of processTree(pid)) {
    if (p === pid) continue;
    const s = stat(p);
    if (!s) continue;
    let script = s.comm;
    try {
      script = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter((a) => /\.[cm]?[jt]s$/.test(a)).at(-1)?.split('/').at(-1) ?? s.comm;
    } catch {
      // gone since the tree was read: its stat above still counts
    }
    out.set(p, { script, seconds: s.own / clockTicks });
  }
  return out;
}

/** CPU seconds by script between two {@link descendantCpu} readings; a process new since `start` counts from zero. */
export function cpuByScript(start: Map<number, { script: string; seconds: number }>, now: Map<number, { script: string; seconds: number }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [p, n] of now) out[n.script] = (out[n.script] ?? 0) + n.seconds - (start.get(p)?.seconds ?? 0);
  return out;
}

/** RSS of one process in MiB from its status: the kernel's counters, no walk of its memory. Zero when it is gone. */
export function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** PSS and RSS of one process in MiB, from smaps_rollup; zeros when it is gone. */
function memory(pid: number): { pss: number; rss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { pss: kb('Pss') / 1024, rss: kb('Rss') / 1024 };
  } catch {
    return { pss: 0, rss: 0 };
  }
}

export interface TreeMemory {
  /** PSS of the whole tree (shared pages split between the processes that map them), MiB. */
  pss: number;
  /** RSS summed over the tree (counts shared pages once per process), MiB. */
  rss: number;
  /** PSS of the root process alone, MiB. */
  rootPss: number;
  processes: number;
}

/** Memory of `pid` and all its descendants now (`tree`: the tree, when just read). */
export function treeMemory(pid: number, tree = processTree(pid)): TreeMemory {
  const out: TreeMemory = { pss: 0, rss: 0, rootPss: 0, processes: 0 };
  for (const p of tree) {
    const m = memory(p);
    out.pss += m.pss;
    out.rss += m.rss;
    out.processes++;
    if (p === pid) out.rootPss = m.pss;
  }
  return out;
}

export interface TreeCpu {
  /** CPU seconds of the root process itself (all its threads: event loop, libuv pool, GC). */
  self: number;
  /** CPU seconds of its descendants: those alive plus those it (or they) already waited for. */
  children: number;
}

/**
 * Cumulative CPU of `pid` and its tree. The difference of two readings is the CPU used in
 * between, descendants that ended in between included: a process that exits and is waited
 * for moves its time into its parent's cutime/cstime, which is counted here.
 */
export function treeCpu(pid: number): TreeCpu {
  let self = 0;
  let children = 0;
  for (const p of processTree(pid)) {
    const s = stat(p);
    if (!s) continue;
    if (p === pid) {
      self += s.own;
      children += s.reaped;
    } else {
      children += s.own + s.reaped;
    }
  }
  return { self: self / clockTicks, children: children / clockTicks };
}

export function cpuSince(pid: number, start: TreeCpu): TreeCpu {
  const now = treeCpu(pid);
  return { self: now.self - start.self, children: now.children - start.children };
}

/** CPU seconds of the whole machine (busy and stolen), of this process and of PostgreSQL's processes, at one moment. */
export interface MachineCpu {
  at: number;
  busy: number;
  steal: number;
  bench: number;
  postgres: number;
}

export function machineCpu(): MachineCpu {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (ticks; guest is in user)
  const v = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = v[0]! + v[1]! + v[2]! + v[5]! + v[6]!;
  const own = process.cpuUsage();
  // The server's processes, ended backends included (the postmaster waited for them).
  let postgres = 0;
  for (const st of allStats().values()) if (st.comm === 'postgres') postgres += st.own + st.reaped;
  return { at: performance.now(), busy: busy / clockTicks, steal: (v[7] ?? 0) / clockTicks, bench: (own.user + own.system) / 1e6, postgres: postgres / clockTicks };
}

/**
 * How busy the machine was since `start`, in cores (CPU seconds per second): in all, by this
 * benchmark process (client and raw Typst threads), by the service trees measured (`service`
 * CPU seconds), by PostgreSQL (any database: other users of the server count too), by
 * everything else, and stolen by the hypervisor. Other load disturbs the figures.
 */
export function machineLoad(start: MachineCpu, service = 0): { busyCores: number; benchCores: number; serviceCores: number; postgresCores: number; otherCores: number; stealCores: number } {
  const now = machineCpu();
  const s = (now.at - start.at) / 1000;
  const busy = now.busy - start.busy;
  const bench = now.bench - start.bench;
  const postgres = now.postgres - start.postgres;
  const r = (x: number) => +(x / s).toFixed(2);
  return { busyCores: r(busy), benchCores: r(bench), serviceCores: r(service), postgresCores: r(postgres), otherCores: r(Math.max(0, busy - bench - service - postgres)), stealCores: r(now.steal - start.steal) };
}

/** Rounds a memory figure (MiB) for the results. */
export const mib = (m: TreeMemory) => ({ pssMiB: Math.round(m.pss), rssMiB: Math.round(m.rss), serverPssMiB: Math.round(m.rootPss), processes: m.processes });
