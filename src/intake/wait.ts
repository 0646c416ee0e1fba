import type { CommittedEnd, Context } from '../context.js';
import { tickets } from '../store/index.js';

/**
 * Waits until a ticket is complete or the time is up. When this process's worker commits the
 * ticket's end, it hands it over directly (row and output bytes); otherwise `done:<id>` events
 * (in process, or PostgreSQL NOTIFY from a worker process) wake the wait, and the row is also
 * re-read every second so a missed event (or two processes on one SQLite file) only costs
 * latency. An end read from the store has no output in hand.
 */
export async function waitForTicket(ctx: Context, notifier: Context['notifier'], id: string, timeoutMs: number): Promise<CommittedEnd | undefined> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => {};
  let handed: CommittedEnd | undefined;
  const unwatch = ctx.localWorker.current?.watchEnd(id, (end) => {
    handed = end;
    wake();
  });
  const unsubscribe = notifier.subscribe((event) => {
    if (event === `done:${id}`) wake();
  });
  try {
    for (;;) {
      if (handed) return handed;
      const row = await tickets.findTicket(ctx.db.kysely, id);
      if (handed) return handed;
      if (!row) return undefined;
      if (row.complete === 1) return { ticket: row, output: null };
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unwatch?.();
    unsubscribe();
  }
}
