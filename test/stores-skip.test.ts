import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

const root = fileURLToPath(new URL('..', import.meta.url));

it('reports the PostgreSQL suites as skipped in the runner summary when PRESSROOM_TEST_DATABASE_URL is unset', () => {
  const env = { ...process.env };
  delete env.PRESSROOM_TEST_DATABASE_URL;
  delete env.NODE_TEST_CONTEXT; // else the child talks the runner's internal protocol instead of TAP
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/fixtures/stores/each-store.ts'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(run.stdout)?.[1]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(count('pass'), 2, run.stdout);
  assert.equal(count('skipped'), 1, `the PostgreSQL suite counts as skipped:\n${run.stdout}`);
  assert.match(run.stdout, /# SKIP PRESSROOM_TEST_DATABASE_URL not set/);
});
