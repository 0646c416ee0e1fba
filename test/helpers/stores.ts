import { describe, it } from 'node:test';

export type StoreKind = 'sqlite' | 'postgres';

const pgUrl = process.env.PRESSROOM_TEST_DATABASE_URL;

/**
 * Runs a suite once per store: SQLite always, PostgreSQL when PRESSROOM_TEST_DATABASE_URL
 * is set; otherwise the PostgreSQL suite stands as one skipped test with the reason. (A skipped
 * `describe` is not counted in the runner's `skipped` total; a skipped test is.)
 */
export function describeEachStore(name: string, fn: (kind: StoreKind) => void): void {
  describe(`${name} [sqlite]`, () => fn('sqlite'));
  if (pgUrl) describe(`${name} [postgres]`, () => fn('postgres'));
  else it(`${name} [postgres]`, { skip: 'PRESSROOM_TEST_DATABASE_URL not set' }, () => {});
}

export function testDatabaseUrl(): string | undefined {
  return pgUrl;
}
