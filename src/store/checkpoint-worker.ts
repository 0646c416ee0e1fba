import type SQLite from 'better-sqlite3';
import type { MessagePort } from 'node:worker_threads';

/**
 * The body of the checkpoint thread (checkpoint-thread.ts): its own connection to the SQLite
 * file, which moves the WAL into the database when the main thread asks (the message is a
 * request id; the answer echoes it, with the error if there was one). The thread runs it from
 * its source text, handed what it needs, so the same code runs from src under tsx and from dist.
 */
export function checkpointWorker(port: MessagePort, Database: typeof SQLite, file: string): void {
  const db = (() => {
    try {
      return new Database(file, { fileMustExist: true });
    } catch (err) {
      // SQLite's error class does not survive the way to the main thread; a plain Error does.
      throw new Error(`cannot open ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  })();
  // Per connection: the checkpoint syncs the WAL before and the database after, as the writer's does.
  db.pragma('synchronous = NORMAL');
  port.on('message', (id: number) => {
    try {
      // PASSIVE: copies what no reader still needs and never waits for, or blocks, a writer.
      db.pragma('wal_checkpoint(PASSIVE)');
      port.postMessage({ id });
    } catch (err) {
      port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
    }
  });
}
