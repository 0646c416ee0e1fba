import type { Context } from '../../context.js';
import { retention } from '../../store/index.js';
import { runHousekeeping, type HousekeepingResult } from './housekeeping.js';

/** `meta` rows holding when the next round (and the next temp-file sweep) is due. */
export const HOUSEKEEPING_DUE_KEY = 'housekeeping_due';
export const TEMP_SWEEP_DUE_KEY = 'housekeeping_temp_due';

const TEMP_SWEEP_EVERY_MS = 24 * 3600_000;

/**
 * Offers to run one housekeeping round: the process whose compare-and-set on the `meta` row
 * wins runs it, every other one returns null at once. The next round is due a little before
 * one interval from now, so with any number of processes a round runs about every interval.
 */
export async function housekeepingTick(ctx: Context, intervalMs = ctx.settings.housekeepingMs): Promise<HousekeepingResult | null> {
  const now = ctx.now();
  const db = ctx.db.kysely;
  if (!(await retention.claimRound(db, HOUSEKEEPING_DUE_KEY, now, now + Math.floor(intervalMs * 0.9)))) return null;
  const temp = await retention.claimRound(db, TEMP_SWEEP_DUE_KEY, now, now + TEMP_SWEEP_EVERY_MS);
  return runHousekeeping(ctx, { now, temp });
}

/** A running housekeeping timer. */
export interface Housekeeping {
  /** Stops the timer and waits for a round in progress. */
  stop(): Promise<void>;
}

/** Ticks every `housekeepingMs` (never twice at once in one process); 0 starts nothing. */
export function startHousekeeping(ctx: Context): Housekeeping {
  const interval = ctx.settings.housekeepingMs;
  if (interval === 0) return { stop: async () => {} };
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = housekeepingTick(ctx)
      .then((r) => {
        if (r && r.files + r.inputs + r.tickets + r.temp > 0) ctx.logger.info({ housekeeping: r }, 'housekeeping removed expired data');
      })
      .catch((err: unknown) => ctx.logger.error({ err }, 'housekeeping round failed; the next round retries'))
      .finally(() => {
        running = null;
      });
  }, interval);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
