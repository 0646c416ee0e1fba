/** Interval types of the statistics, shortest first. */
export const statsUnits = ['hour', 'day', 'month', 'year'] as const;
export type StatsUnit = (typeof statsUnits)[number];

/** Start (epoch ms, UTC) of the interval of `unit` that holds `at`. */
export function intervalStart(unit: StatsUnit, at: number): number {
  const d = new Date(at);
  const y = d.getUTCFullYear();
  switch (unit) {
    case 'hour':
      return Date.UTC(y, d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
    case 'day':
      return Date.UTC(y, d.getUTCMonth(), d.getUTCDate());
    case 'month':
      return Date.UTC(y, d.getUTCMonth(), 1);
    case 'year':
      return Date.UTC(y, 0, 1);
  }
}

/** End (exclusive, epoch ms, UTC) of the interval of `unit` starting at `start`. */
export function intervalEnd(unit: StatsUnit, start: number): number {
  const d = new Date(start);
  switch (unit) {
    case 'hour':
      return start + 3600_000;
    case 'day':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    case 'year':
      return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  }
}
