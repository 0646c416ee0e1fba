import type { Context } from '../context.js';
import { tickets, type Notifier, type TicketRow } from '../store/index.js';

/** A step the worker runs now: the attempt that claimed its ticket, its lease renewal, and for a ticket intake handed over, its storing. */
export interface StepInFlight {
  ref: { id: string; attempt: number; owner: string };
  renew: NodeJS.Timeout;
  stored?: Promise<void>;
}

/**
 * Shutdown after the grace period: releases the tickets of the steps still running (no lease,
 * due now, not a redelivery), so that any worker takes them up at once instead of after their
 * lease. Each is first marked in `released`, so what its step still returns is dropped.
 */
export async function releaseRunning(ctx: Context, notifier: Notifier, running: ReadonlyMap<string, StepInFlight>, released: Set<string>): Promise<void> {
  const now = ctx.now();
  for (const [id, { ref, renew, stored }] of running) {
    clearInterval(renew);
    released.add(id);
    // A ticket intake is still storing has no row to release yet.
    await stored?.catch(() => {});
    const ok = await tickets.releaseLease(ctx.db.kysely, ref, now).catch((err: unknown) => {
      ctx.logger.error({ err, ticket: id }, 'could not release a running ticket; it waits for its lease to run out');
      return false;
    });
    if (ok) ctx.logger.info({ ticket: id, attempt: ref.attempt }, 'released a running ticket at shutdown');
  }
  if (running.size > 0) await notifier.publish('new').catch(() => {});
}

/** A ticket handed to a worker that stopped meanwhile: released, so that any worker takes it up at once. */
export async function handBack(ctx: Context, notifier: Notifier, row: TicketRow, owner: string): Promise<void> {
  const ref = { id: row.id, attempt: row.attempt, owner };
  const ok = await tickets.releaseLease(ctx.db.kysely, ref, ctx.now()).catch(() => false);
  if (ok) await notifier.publish('new').catch(() => {});
  else ctx.logger.warn({ ticket: row.id }, 'could not release a ticket handed over at shutdown; it waits for its lease to run out');
}
