import { readdirSync, readFileSync } from 'node:fs';

/** Every process below `pid` (Linux /proc), deepest last. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The parent pid is the second field after the parenthesised command name.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (parents.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

/** The processes below `pid` (the test process, which runs the server) whose command line names `script`. */
export function processesRunning(script: string, pid = process.pid): number[] {
  return descendants(pid).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(script);
    } catch {
      return false; // the process ended while we looked
    }
  });
}

/** The Typst render processes below `pid` (the test process, which runs the server). */
export function renderProcesses(pid = process.pid): number[] {
  return processesRunning('typst-child', pid);
}
