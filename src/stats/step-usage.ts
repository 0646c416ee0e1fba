import type { StatsRow, TicketPatch, TicketRow } from '../store/index.js';
import { usageRows, type UsageCounters } from './usage.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/**
 * The counters one step commit adds, read from the ticket before and the patch that commits
 * the step: the processing time and pages the patch adds; a failure with no redelivery left
 * counts as an error (the error step's own failure does not count twice); a completion counts
 * the ticket, its redeliveries and its round trip. Committed in the step's transaction.
 */
export function stepUsage(ticket: TicketRow, step: string, outcome: { readonly kind: 'succeeded' | 'deferred' | 'failed' }, patch: TicketPatch): StatsRow[] {
  const at = num(patch.updated) ?? num(patch.completed) ?? ticket.updated;
  const counters: Partial<UsageCounters> = {
    processingMsec: (num(patch.processing_msecs) ?? ticket.processing_msecs) - ticket.processing_msecs,
    processingPages: (num(patch.processing_pages) ?? ticket.processing_pages) - ticket.processing_pages,
  };
  if (outcome.kind === 'failed' && patch.next !== step && step !== 'error') counters.errors = 1;
  if (patch.complete === 1) {
    const completed = num(patch.completed) ?? at;
    counters.tickets = 1;
    counters.redeliveries = num(patch.redeliveries) ?? ticket.redeliveries;
    counters.totalMsec = Math.max(0, completed - ticket.created);
  }
  return usageRows(ticket.tenant, ticket.project, at, counters);
}
