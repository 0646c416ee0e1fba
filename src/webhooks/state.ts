import type { Context } from '../context.js';
import { webhookState, type TicketRow } from '../store/index.js';
import type { WebhookStep } from './connections.js';

/** What a ticket remembers between webhook attempts (column `webhook_state`, JSON). */
export interface WebhookState {
  /** URLs of each step delivered so far, counted from the first: a redelivery resumes after them. */
  done: Partial<Record<WebhookStep, number>>;
  /** Export parameters taken from upload answers, for later callback and error requests. */
  exports: Record<string, string>;
}

/** The ticket's webhook state (empty when nothing was delivered yet). */
export async function loadState(ctx: Context, ticket: TicketRow): Promise<WebhookState> {
  const raw = await webhookState.readWebhookState(ctx.db.kysely, ticket.id);
  if (!raw) return { done: {}, exports: {} };
  const parsed = JSON.parse(raw) as Partial<WebhookState>;
  return { done: parsed.done ?? {}, exports: parsed.exports ?? {} };
}

/**
 * Stores the state under the attempt that holds the ticket. False when the lease was lost:
 * another worker owns the ticket now and this run must stop sending.
 */
export function saveState(ctx: Context, ticket: TicketRow, state: WebhookState): Promise<boolean> {
  const ref = { id: ticket.id, attempt: ticket.attempt, owner: ticket.lease_owner ?? '' };
  return webhookState.saveWebhookState(ctx.db.kysely, ref, JSON.stringify(state));
}
