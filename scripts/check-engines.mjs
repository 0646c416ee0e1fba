#!/usr/bin/env node
// Checks that the lowest Node version package.json's `engines.node` admits satisfies the
// `engines.node` of every installed production dependency (what npm warns about as EBADENGINE,
// made an error). CI runs it after installing; it reads what is installed, not the lock file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const root = new URL('..', import.meta.url).pathname;
const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const range = own.engines?.node;
if (!range || !semver.validRange(range)) {
  console.error(`package.json engines.node is missing or not a semver range: ${JSON.stringify(range)}`);
  process.exit(1);
}
const floor = semver.minVersion(range);

// `npm ls --parseable` prints the folder of every installed package of the production tree.
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const folders = execFileSync(npm, ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && line !== root.replace(/\/$/, ''));

const problems = [];
let checked = 0;
for (const folder of new Set(folders)) {
  const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const wants = pkg.engines?.node;
  checked++;
  if (!wants) continue;
  if (!semver.satisfies(floor, wants, { includePrerelease: true })) problems.push(`${pkg.name}@${pkg.version} needs node ${wants}`);
}

if (problems.length > 0) {
  console.error(`engines.node "${range}" admits Node ${floor}, which these production dependencies refuse:\n  ${problems.join('\n  ')}`);
  console.error('Raise engines.node, or pin (package.json "overrides") or replace the dependency.');
  process.exit(1);
}
console.log(`engines: ${checked} production packages all admit Node ${floor} (engines.node "${range}")`);
