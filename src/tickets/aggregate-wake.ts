import type { Context } from '../context.js';
import { tickets, type Notifier, type TicketRow } from '../store/index.js';

/**
 * A fanout part has just completed with `status`: its aggregate ticket becomes due at once when
 * the part failed, else when it was the last part still open.
 */
export async function wakeAggregate(ctx: Context, notifier: Notifier, part: TicketRow, status: string | null): Promise<void> {
  const db = ctx.db.kysely;
  const failed = status?.endsWith('.failed') ?? false;
  if (failed || !(await tickets.hasOpenParts(db, part.aggregate_id!))) {
    await tickets.makeDue(db, part.aggregate_id!, ctx.now());
    await notifier.publish('new').catch(() => {});
  }
}
