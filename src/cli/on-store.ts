import { loadSettings } from '../config/settings.js';
import { AppError } from '../errors.js';
import { migrate, openDb, type Db } from '../store/index.js';

/**
 * Runs a CLI command on the store the settings name (migrated first), with or without a running
 * server: exit 0 when it succeeds, 1 with the readable message when the store refuses.
 */
export async function onStore(work: (db: Db) => Promise<void>): Promise<number> {
  const settings = loadSettings();
  const db = openDb(settings);
  try {
    await migrate(db, settings.databaseSchema);
    await work(db);
    return 0;
  } catch (err) {
    if (err instanceof AppError) {
      process.stderr.write(`error: ${err.publicMessage}\n`);
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}
