import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The webhook state JSON of a ticket (null when no webhook step has recorded progress). */
export async function readWebhookState(db: Kysely<Database>, id: string): Promise<string | null> {
  const row = await db.selectFrom('tickets').select('webhook_state').where('id', '=', id).executeTakeFirst();
  return row?.webhook_state ?? null;
}

/**
 * Records webhook progress while a step runs, only if `attempt` still holds the lease: a
 * delivered URL is remembered at once, so a redelivery (or a worker taking over) resumes after it.
 * False when a newer attempt owns the ticket.
 */
export async function saveWebhookState(db: Kysely<Database>, ref: { id: string; attempt: number; owner: string }, state: string): Promise<boolean> {
  const res = await db
    .updateTable('tickets')
    .set({ webhook_state: state })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
