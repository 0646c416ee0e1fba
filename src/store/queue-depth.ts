import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Open tickets by state and next step, and the age of the oldest due one (for /metrics). */
export interface QueueDepth {
  depth: { state: 'due' | 'delayed' | 'running'; next: string; count: number }[];
  oldestDueAgeSeconds: number;
}

/**
 * One grouped scan of the open tickets (those with a next step). running: leased now; due:
 * waiting for a worker (an expired lease counts as due, it is taken over next); delayed: waiting
 * for its run_after (a redelivery interval, an aggregate waiting for its parts).
 */
export async function queueDepth(db: Kysely<Database>, now: number): Promise<QueueDepth> {
  const state = sql<'due' | 'delayed' | 'running'>`case when lease_until is not null and lease_until >= ${now} then 'running' when run_after <= ${now} then 'due' else 'delayed' end`;
  const rows = await db
    .selectFrom('tickets')
    .select([state.as('state'), 'next', (eb) => eb.fn.countAll<number | string>().as('count'), (eb) => eb.fn.min<number | string | null>('run_after').as('oldest')])
    .where('next', 'is not', null)
    // By position: PostgreSQL would not see the parameterised case in the select list and here as one expression.
    .groupBy([sql`1`, sql`2`])
    .execute();
  let oldest: number | null = null;
  for (const r of rows) if (r.state === 'due' && r.oldest !== null) oldest = Math.min(oldest ?? Infinity, Number(r.oldest));
  return {
    depth: rows.map((r) => ({ state: r.state, next: r.next!, count: Number(r.count) })),
    oldestDueAgeSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000),
  };
}
