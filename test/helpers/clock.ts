/**
 * A clock for `startTestServer(…, { now })` that runs at real speed from a chosen instant and
 * can be set to another one (only forward, and only while no ticket is running, or leases
 * would look expired).
 */
export interface TestClock {
  now(): number;
  /** Continues from `at` (epoch ms). */
  set(at: number): void;
  /** Jumps forward by `ms`. */
  advance(ms: number): void;
}

/** A clock starting at `at` (epoch ms, default: the real time). */
export function testClock(at = Date.now()): TestClock {
  let offset = at - Date.now();
  const clock: TestClock = {
    now: () => Date.now() + offset,
    set(to) {
      offset = to - Date.now();
    },
    advance(ms) {
      offset += ms;
    },
  };
  return clock;
}
