import SQLite from 'better-sqlite3';

/**
 * Opens the SQLite file with the settings every connection needs. Deleted data must leave the
 * file, not just the tables: `secure_delete` zeroes freed cells and pages, incremental
 * auto-vacuum lets housekeeping hand free pages back to the file system. auto_vacuum can only
 * be chosen before the first table exists, so a database made without it is rebuilt once
 * (VACUUM); when another process holds it busy, the next start tries again.
 */
export function openSqliteFile(path: string): SQLite.Database {
  const sqlite = new SQLite(path);
  sqlite.pragma('busy_timeout = 5000');
  // Before WAL: in a new file this is what creates it with incremental auto-vacuum.
  sqlite.pragma('auto_vacuum = INCREMENTAL');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('secure_delete = ON');
  if (sqlite.pragma('auto_vacuum', { simple: true }) !== 2) {
    try {
      sqlite.exec('VACUUM');
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    }
  }
  return sqlite;
}

/**
 * Makes removed data leave the files: frees the pages deletions emptied (the file shrinks) and
 * copies the WAL into the database and truncates it, so no old page version stays behind in
 * it. Returns false when another process's reader kept the WAL from being truncated this time.
 */
export function reclaimSqliteSpace(sqlite: SQLite.Database): boolean {
  // pragma() steps the statement to its end: incremental_vacuum frees one page per step.
  sqlite.pragma('incremental_vacuum');
  const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  return result?.busy === 0;
}
