import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived a full collection before it
 * starts the next one, in percent.
 *
 * V8 chooses this growth itself, from how fast it collects against how fast the program
 * allocates. For a serving process with ~35 MiB alive, V8 rated collection 400–600 times
 * faster than allocation (`--trace-gc-verbose`) and picked its minimum of 10 %. From about the
 * thousandth ticket on, it then ran a full collection every ~0.4 s: marking almost without a
 * break, on V8's helper threads and in steps on the main thread. At 50 % (six async runs of
 * 600 sheets on one server, 2 cores) the helper threads' CPU per ticket halved (1.23–1.29 →
 * 0.57–0.59 ms), the main thread's fell (3.10–3.33 → 2.86–3.02 ms) and throughput rose 4–6 %.
 *
 * At 100 % a run of 600 sheets has 1–3 full collections instead of 3–4, and the service process
 * spent about a tenth less CPU per ticket: two servers loaded side by side, six rounds each
 * way, 0.93–0.98 of 50 %'s with 100 % second and 0.84–0.96 with it first; three alternated
 * pairs of fresh servers, 5 of 6 runs 7–22 % lower and one 3 % higher; the soak 3.5 against
 * 4.0 ms per ticket (mean of its waves, minutes apart). Synchronous latency did not move. The
 * price is memory, well within the bench's bound: the soak's tree stayed flat at 229–249 MiB
 * (service process 143–164) against 215–230 (136–147) at 50 % the same morning.
 */
export const HEAP_GROWING_PERCENT = 100;

/**
 * The V8 flag `serve` sets for its process, or null when node was started with a growth of
 * its own (`node --heap-growing-percent=N …`): an operator's choice wins. V8 reads the flag at
 * every collection, so setting it at run time works. NODE_OPTIONS cannot carry it.
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a))) return null;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies {@link heapGrowthFlag} to this process. */
export function setServingHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
