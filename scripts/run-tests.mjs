#!/usr/bin/env node
// Runs every test/**/*.test.ts with Node's test runner (TypeScript through tsx).
// Arguments narrow the run to the given files or folders.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(path) {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path).sort().flatMap((name) => collect(join(path, name)));
}

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['test'];
const files = roots.flatMap(collect);
if (!process.env.PRESSROOM_TEST_DATABASE_URL) {
  console.log('note: PRESSROOM_TEST_DATABASE_URL is not set; the PostgreSQL variants are reported as skipped.');
}
if (!process.env.PRESSROOM_TEST_S3_ENDPOINT) {
  console.log('note: PRESSROOM_TEST_S3_ENDPOINT is not set; the S3 variants are reported as skipped.');
}
const concurrency = process.env.PRESSROOM_TEST_CONCURRENCY ?? '3';
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, PRESSROOM_LOG_LEVEL: process.env.PRESSROOM_LOG_LEVEL ?? 'silent' } },
);
process.exit(result.status ?? 1);
