import type { Context } from '../context.js';
import { stepEvents, type TicketRow } from '../store/index.js';

/** One attempt of one step, as the timeline endpoint shows it. */
export interface TimelineEntry {
  step: string;
  /** 1-based count of this step's attempts (a redelivery is attempt 2, …). */
  attempt: number;
  outcome: 'succeeded' | 'failed' | 'redelivered' | 'running';
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  errorCode: string | null;
}

/**
 * The steps of a ticket, oldest first. An attempt without an end is `running` while it is the
 * ticket's current attempt and its lease is live. Once that attempt has committed (no lease
 * owner) but its end is not written yet, the ticket's status tells the outcome. Otherwise its
 * worker died or lost the lease, and another attempt took (or will take) over: `redelivered`.
 */
export async function ticketTimeline(ctx: Context, ticket: Pick<TicketRow, 'id' | 'attempt' | 'lease_until' | 'lease_owner' | 'status' | 'updated' | 'error_code'>): Promise<TimelineEntry[]> {
  const rows = await stepEvents.listForTicket(ctx.db.kysely, ticket.id);
  const now = ctx.now();
  const perStep = new Map<string, number>();
  return rows.map((r) => {
    const n = (perStep.get(r.step) ?? 0) + 1;
    perStep.set(r.step, n);
    let outcome: TimelineEntry['outcome'] = r.outcome === 'succeeded' || r.outcome === 'failed' ? r.outcome : 'redelivered';
    let ended = r.ended;
    let errorCode = r.error_code;
    if (r.outcome === null && r.attempt === ticket.attempt) {
      const committed = ticket.lease_owner === null;
      const reported = ticket.status === `${r.step}.succeeded` ? 'succeeded' : ticket.status === `${r.step}.failed` ? 'failed' : null;
      if (committed && reported) {
        outcome = reported;
        ended = ticket.updated;
        errorCode = reported === 'failed' ? ticket.error_code : null;
      } else if (committed || (ticket.lease_until !== null && ticket.lease_until >= now)) {
        outcome = 'running';
      }
    }
    return {
      step: r.step,
      attempt: n,
      outcome,
      startedAt: new Date(r.started).toISOString(),
      endedAt: ended === null ? null : new Date(ended).toISOString(),
      durationMs: ended === null ? null : Math.max(0, ended - r.started),
      errorCode,
    };
  });
}
