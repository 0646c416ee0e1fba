import { loadSettings } from '../config/settings.js';
import { migrate, openDb } from '../store/index.js';

/** `pressroom migrate`: applies pending migrations and reports them. */
export async function migrateCommand(_args: string[]): Promise<number> {
  const settings = loadSettings();
  const db = openDb(settings);
  try {
    const applied = await migrate(db, settings.databaseSchema);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  } finally {
    await db.close();
  }
}
