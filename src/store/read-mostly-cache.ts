import type { Kysely } from 'kysely';
import type { Notifier } from './notifier.js';
import { findFirstRepoFile, findRepoFiles, listRepoFilesUnderAny, type RepoFileRow } from './repo-files.js';
import type { Database } from './schema.js';
import { findProject, type ProjectRow } from './tenants.js';

/** The notifier event a change of repository files or projects publishes: every process drops what it remembered. */
export const READ_MOSTLY_CHANGED = 'read-mostly';

/** How long a remembered answer may be used without a change event (bounds a lost event). */
export const READ_MOSTLY_MS = 2000;
const MAX_ENTRIES = 1024;

/**
 * What every ticket reads and few requests change: its project's row and the repository index
 * queries (the step configurations, the template, the job's view of the repository),
 * remembered per query until a repository file or a project changes. A change in any process
 * publishes {@link READ_MOSTLY_CHANGED}, which every process's cache hears (in process, or by
 * PostgreSQL NOTIFY); an answer is also used for at most {@link READ_MOSTLY_MS}, so an event
 * lost while a process reconnects costs at most that long.
 *
 * Processes on one SQLite file have no notifier between them: there, a commit by any other
 * connection (SQLite's data_version) forgets everything, so a second process sees a change as
 * soon as it is committed (and the cache helps little while the other process writes).
 *
 * A query that was running when a change came is not remembered: on PostgreSQL it may have
 * read the rows from before the change.
 */
export class ReadMostlyCache {
  private readonly entries = new Map<string, { at: number; value: unknown }>();
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
      if (event === READ_MOSTLY_CHANGED) this.forget();
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

  /** A project's row, or undefined when there is no such project. */
  async findProject(tenant: string, name: string): Promise<ProjectRow | undefined> {
    return (await this.remembered(`project\n${tenant}\n${name}`, async () => {
      const row = await findProject(this.db, tenant, name);
      return row ? [row] : [];
    }))[0];
  }

  /**
   * To be called once a change of repository files or projects has committed: forgets
   * everything here at once, and tells the other processes. A failed announcement leaves
   * them the time bound.
   */
  async changed(): Promise<void> {
    this.forget();
    await this.notifier.publish(READ_MOSTLY_CHANGED).catch(() => {});
  }

  close(): void {
    this.unsubscribe();
    this.entries.clear();
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }

  private async remembered<T extends object>(key: string, load: () => Promise<readonly T[]>): Promise<readonly T[]> {
    const others = this.othersCommitted?.() ?? null;
    if (others !== this.othersSeen) {
      this.othersSeen = others;
      this.forget();
    }
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && now - hit.at >= 0 && now - hit.at < READ_MOSTLY_MS) return hit.value as readonly T[];
    const generation = this.generation;
    // Frozen: the rows are shared by every caller until the next change.
    const rows = Object.freeze((await load()).map((r) => Object.freeze(r)));
    if (generation === this.generation) {
      this.entries.delete(key);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { at: now, value: rows });
    }
    return rows;
  }
}
