import type { Context } from '../context.js';
import { tickets, type TicketRow } from '../store/index.js';

/**
 * Waits until a ticket is complete or the time is up. Woken by `done:<id>` events (in
 * process, or PostgreSQL NOTIFY from a worker process), and also re-reads the row every
 * second so a missed event (or two processes on one SQLite file) only costs latency.
 */
export async function waitForTicket(ctx: Context, notifier: Context['notifier'], id: string, timeoutMs: number): Promise<TicketRow | undefined> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => {};
  const unsubscribe = notifier.subscribe((event) => {
    if (event === `done:${id}`) wake();
  });
  try {
    for (;;) {
      const row = await tickets.findTicket(ctx.db.kysely, id);
      if (!row || row.complete === 1) return row;
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
    unsubscribe();
  }
}
