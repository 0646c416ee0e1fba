import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from './db.js';

/**
 * The NOTIFY channel of the processes sharing one schema. Channels belong to the whole database:
 * without the schema in the name, every pressroom on the database (other deployments, parallel
 * test runs) would hear every other's events, and a stray `new` sets the worker claiming, during
 * which intake cannot hand it a ticket. `public` keeps the name earlier versions used for every
 * schema, so both versions hear each other during a rolling upgrade.
 */
export function eventChannel(schema: string): string {
  if (schema === 'public') return 'pressroom_events';
  const name = `pressroom_events_${schema}`;
  // A channel name is an identifier: PostgreSQL keeps its first 63 bytes.
  return name.length <= 63 ? name : `${name.slice(0, 50)}_${createHash('sha256').update(schema).digest('hex').slice(0, 12)}`;
}

/** Ticket events: `new` wakes workers, `done:<id>` wakes synchronous waiters. */
export interface Notifier {
  /** `local`: only this process's subscribers hear it (no PostgreSQL NOTIFY). */
  publish(event: string, scope?: 'local'): Promise<void>;
  subscribe(fn: (event: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * In-process events, plus PostgreSQL LISTEN/NOTIFY when the store is PostgreSQL so an API
 * process hears a worker process. Local subscribers hear local events at once either way.
 */
export async function createNotifier(db: Db, logger: Logger, schema: string): Promise<Notifier> {
  const channel = eventChannel(schema);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  let listener: pg.Client | null = null;
  let closed = false;

  const connect = async (): Promise<void> => {
    if (!db.pgConfig || closed) return;
    const client = new pg.Client(db.pgConfig);
    client.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload && !msg.payload.startsWith(`${instance}|`)) local.emit('event', msg.payload.slice(msg.payload.indexOf('|') + 1));
    });
    client.on('error', (err) => {
      logger.warn({ err }, 'notification connection lost; reconnecting');
      listener = null;
      client.end().catch(() => {});
      if (!closed) setTimeout(() => void connect().catch((e: unknown) => logger.warn({ err: e }, 'reconnect failed')), 1000).unref();
    });
    await client.connect();
    // The settings allow only lower-case letters, digits and `_` in a schema name: a plain identifier.
    await client.query(`LISTEN ${channel}`);
    listener = client;
  };
  const instance = Math.random().toString(36).slice(2);
  await connect();

  return {
    async publish(event, scope) {
      local.emit('event', event);
      if (db.pgPool && scope !== 'local') await db.pgPool.query('SELECT pg_notify($1, $2)', [channel, `${instance}|${event}`]);
    },
    subscribe(fn) {
      local.on('event', fn);
      return () => local.off('event', fn);
    },
    async close() {
      closed = true;
      local.removeAllListeners();
      if (listener) await listener.end().catch(() => {});
    },
  };
}
