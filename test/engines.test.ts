import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import Fastify from 'fastify';

const root = fileURLToPath(new URL('..', import.meta.url));

it('every installed production dependency admits the lowest Node version engines.node allows', () => {
  const run = spawnSync(process.execPath, ['scripts/check-engines.mjs'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /all admit Node 20\.19\.0/);
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, '>=20.19.0');
});

it('the pinned cookie and content-disposition versions work where Fastify uses them', async () => {
  // light-my-request (Fastify's inject) encodes request cookies with `cookie`.
  const app = Fastify();
  app.get('/', async (req) => ({ cookie: req.headers.cookie }));
  const res = await app.inject({ method: 'GET', url: '/', cookies: { session: 'a b', other: 'x' } });
  assert.deepEqual(res.json(), { cookie: 'session=a%20b; other=x' });
  await app.close();
  // @fastify/static builds Content-Disposition with `content-disposition`'s create().
  const fromStatic = createRequire(join(root, 'node_modules/@fastify/static/index.js'));
  const { create } = fromStatic('content-disposition') as { create: (name: string) => string };
  assert.equal(create('report 1.pdf'), 'attachment; filename="report 1.pdf"');
});
