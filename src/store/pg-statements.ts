import type pg from 'pg';

// PostgreSQL parses and plans every statement sent without a name, each time it runs. The
// statements that run for every ticket (see Prepared) are sent with a name instead: each
// connection parses one once and keeps it, and after a few runs PostgreSQL keeps its plan too.
// On the bench page that took PostgreSQL's own CPU per ticket from 3.9-4.3 to 2.7-3.5 ms.

/** SQL texts of the every-ticket statements, each with its name; bounded by Prepared's shapes. */
const names = new Map<string, number>();

/** Marks `sql` as a statement that runs often enough to keep parsed on every connection. */
export function keepParsed(sql: string): void {
  if (!names.has(sql)) names.set(sql, names.size);
}

/** PostgreSQL's answer to a kept statement whose table changed (code feature_not_supported). */
const planOutdated = (err: unknown): boolean => (err as { code?: string }).code === '0A000' && /cached plan/.test((err as Error).message);

/**
 * Sends the statements marked by {@link keepParsed} under their names on every connection of
 * `pool`. A statement kept parsed across a schema change (another process migrated the
 * database) can fail once with "cached plan must not change result type": every name then
 * starts over under a new generation, so each connection parses the statement again, and a
 * statement that failed outside a transaction is run again at once. Inside a transaction the
 * failure stands: the transaction is already rolled back, and its caller retries as it would
 * after any failed write.
 */
export function sendNamedStatements(pool: pg.Pool): void {
  let generation = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => unknown;
    const named = (text: string, values: unknown[], seq: number): Promise<pg.QueryResult> => query({ name: `pressroom_${generation}_${seq}`, text, values }) as Promise<pg.QueryResult>;
    client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
      const seq = typeof config === 'string' && Array.isArray(values) && callback === undefined ? names.get(config) : undefined;
      if (seq === undefined) return query(config, values, callback);
      const text = config as string;
      const sentIn = generation;
      return named(text, values as unknown[], seq).catch((err: unknown) => {
        if (!planOutdated(err)) throw err;
        if (generation === sentIn) generation++;
        if (client.getTransactionStatus() !== 'I') throw err;
        return named(text, values as unknown[], seq);
      });
    }) as typeof client.query;
  });
}
