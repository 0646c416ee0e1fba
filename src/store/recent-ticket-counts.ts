import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { countCreatedSince, PRIORITY_COUNT_MAX } from './tickets.js';

/** The window of a project's request rate for fair priority. */
const PRIORITY_WINDOW_MS = 60_000;

/**
 * How long a count read from the database is carried forward with this process's own
 * acceptances before it is read again. The count is over a minute, so in this time it can
 * miss at most a second's worth of tickets leaving the window and of other processes' intakes.
 */
export const RECENT_COUNT_REFRESH_MS = 1000;

/** Projects remembered; past this many the oldest reading is dropped (and read again when asked). */
const MAX_ENTRIES = 4096;

interface Reading {
  /** When the database was asked. */
  readonly at: number;
  /** Its answer. */
  readonly counted: number;
  /** Tickets this process stored for the project since. */
  added: number;
}

/**
 * Fair priority's count of a project's tickets in the last minute (docs/fanout.md), read from
 * the database at most once a second per project and carried forward in between with the
 * tickets this process stores. The query walks up to {@link PRIORITY_COUNT_MAX} index entries:
 * 90–100 µs a request on SQLite once a project sends a few hundred tickets a minute, the
 * second-largest statement of a burst of submissions after the commits.
 *
 * Approximate by design, as the priority itself is: between readings it does not see tickets
 * leaving the window or other processes' intakes; a ticket stored while another request reads
 * the database may be counted twice.
 */
export class RecentTicketCounts {
  private readonly readings = new Map<string, Reading>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
  ) {}

  /** Tickets the project accepted in the last minute, up to {@link PRIORITY_COUNT_MAX}. */
  async count(tenant: string, project: string): Promise<number> {
    const key = `${tenant}\n${project}`;
    const now = this.now();
    const reading = this.readings.get(key);
    // A clock set back (tests inject one) reads again rather than trust a reading from the future.
    if (reading && now >= reading.at && now - reading.at < RECENT_COUNT_REFRESH_MS) return Math.min(PRIORITY_COUNT_MAX, reading.counted + reading.added);
    const counted = await countCreatedSince(this.db, tenant, project, now - PRIORITY_WINDOW_MS);
    this.readings.delete(key);
    if (this.readings.size >= MAX_ENTRIES) this.readings.delete(this.readings.keys().next().value!);
    this.readings.set(key, { at: now, counted, added: 0 });
    return counted;
  }

  /** `n` tickets of the project were stored (committed) by this process. */
  stored(tenant: string, project: string, n: number): void {
    const reading = this.readings.get(`${tenant}\n${project}`);
    if (reading) reading.added += n;
  }
}
