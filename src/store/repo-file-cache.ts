import type { Kysely } from 'kysely';
import type { Notifier } from './notifier.js';
import { findFirstRepoFile, findRepoFiles, listRepoFilesUnderAny, type RepoFileRow } from './repo-files.js';
import type { Database } from './schema.js';

/** The notifier event a repository change publishes: every process drops what it remembered. */
export const REPOSITORY_CHANGED = 'repository';

/** How long a remembered answer may be used without a change event (bounds a lost event). */
export const REPO_CACHE_MS = 2000;
const MAX_ENTRIES = 1024;

/**
 * The repository index queries every ticket runs (the step configurations, the template, the
 * job's view of the repository), remembered per query until the repository changes. A change
 * in any process publishes {@link REPOSITORY_CHANGED}, which every process's cache hears (in
 * process, or by PostgreSQL NOTIFY); an answer is also used for at most {@link REPO_CACHE_MS},
 * so an event lost while a process reconnects costs at most that long.
 *
 * Processes on one SQLite file have no notifier between them: there, a commit by any other
 * connection (SQLite's data_version) forgets everything, so a second process sees a change as
 * soon as it is committed (and the cache helps little while the other process writes).
 *
 * A query that was running when a change came is not remembered: on PostgreSQL it may have
 * read the rows from before the change.
 */
export class RepoFileCache {
  private readonly entries = new Map<string, { at: number; rows: readonly RepoFileRow[] }>();
  private generation = 0;
  private othersSeen: number | null = null;
  private readonly unsubscribe: () => void;

  /** `othersCommitted`: the Db's counter of other connections' commits (SQLite), or null. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly notifier: Notifier,
    private readonly now: () => number,
    private readonly othersCommitted: (() => number) | null = null,
  ) {
    this.unsubscribe = notifier.subscribe((event) => {
      if (event === REPOSITORY_CHANGED) this.forget();
    });
  }

  /** The rows of these paths that exist (see repo-files' findRepoFiles). */
  findRepoFiles(paths: readonly string[]): Promise<readonly RepoFileRow[]> {
    return this.remembered(`files\n${paths.join('\n')}`, () => findRepoFiles(this.db, paths));
  }

  /** The first of `paths` that exists, in the given order. */
  async findFirstRepoFile(paths: string[]): Promise<RepoFileRow | undefined> {
    const rows = await this.remembered(`first\n${paths.join('\n')}`, async () => {
      const row = await findFirstRepoFile(this.db, paths);
      return row ? [row] : [];
    });
    return rows[0];
  }

  /** Rows under any of these folder prefixes, ordered by path. */
  listUnderAny(prefixes: string[]): Promise<readonly RepoFileRow[]> {
    return this.remembered(`under\n${prefixes.join('\n')}`, () => listRepoFilesUnderAny(this.db, prefixes));
  }

  /**
   * To be called once a change of repository rows has committed: forgets everything here at once,
   * and tells the other processes. A failed announcement leaves them the time bound.
   */
  async changed(): Promise<void> {
    this.forget();
    await this.notifier.publish(REPOSITORY_CHANGED).catch(() => {});
  }

  close(): void {
    this.unsubscribe();
    this.entries.clear();
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }

  private async remembered(key: string, load: () => Promise<readonly RepoFileRow[]>): Promise<readonly RepoFileRow[]> {
    const others = this.othersCommitted?.() ?? null;
    if (others !== this.othersSeen) {
      this.othersSeen = others;
      this.forget();
    }
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && now - hit.at >= 0 && now - hit.at < REPO_CACHE_MS) return hit.rows;
    const generation = this.generation;
    // Frozen: the rows are shared by every caller until the next change.
    const rows = Object.freeze((await load()).map((r) => Object.freeze(r)));
    if (generation === this.generation) {
      this.entries.delete(key);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { at: now, rows });
    }
    return rows;
  }
}
