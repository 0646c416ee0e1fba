import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { processesRunning } from './helpers/processes.js';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const noProc = existsSync('/proc/self/environ') ? false : 'needs /proc (Linux) to read a process environment';

/** The environment of each process running `script` below this test process (which runs the server). */
function processEnvs(script: string): Map<string, string>[] {
  return processesRunning(script).flatMap((pid) => {
    try {
      const vars = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      return [new Map(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]))];
    } catch {
      return []; // the process ended while we looked
    }
  });
}

describe('the environment of a render process', () => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    // In the server's environment before its render processes start.
    process.env.PRESSROOM_TEST_SECRET = 'must not reach a render process';
    t = await startTestServer('sqlite', { renderThreads: 2 });
    jobs = (await setupProject(t)).jobs;
  });
  after(async () => {
    await t.close();
    delete process.env.PRESSROOM_TEST_SECRET;
  });

  it('holds the package sandbox and the allocator setting, and nothing of the server', { skip: noProc }, async () => {
    const [id] = await submit(t, jobs, '<data><item><title>Environment</title></item></data>');
    assert.equal((await waitComplete(t, jobs, id!)).status, 'renderpdf.succeeded');
    const envs = processEnvs('typst-child');
    assert.ok(envs.length >= 1, 'no Typst render process found');
    for (const env of envs) {
      // Package downloads go to a dead proxy; package folders are an empty temporary folder.
      assert.equal(env.get('HTTPS_PROXY'), 'http://127.0.0.1:9');
      assert.match(env.get('HOME') ?? '', /pressroom-typst-/);
      assert.equal(env.get('TYPST_PACKAGE_PATH'), env.get('HOME'));
      assert.equal(env.has('PRESSROOM_TEST_SECRET'), false);
      // Huge pages with a fixed mmap threshold (engines/typst/render-allocator.ts). glibc rewrites
      // the variable in place once it has read it: 2.36 leaves only its first tunable to be seen.
      assert.match(env.get('GLIBC_TUNABLES') ?? '', /^glibc\.malloc\.hugetlb=1(:glibc\.malloc\.mmap_threshold=1048576)?$/);
    }
  });

  it('of a convert process holds the allocator setting (huge pages), and nothing of the server', { skip: noProc }, async () => {
    const [id] = await submit(t, jobs, '<data><item><title>Environment</title></item></data>', { query: `convert=${encodeURIComponent('format=png;resolution=36')}` });
    assert.equal((await waitComplete(t, jobs, id!)).status, 'convert.succeeded');
    const envs = processEnvs('mupdf-child');
    assert.ok(envs.length >= 1, 'no MuPDF process found');
    for (const env of envs) {
      assert.equal(env.get('GLIBC_TUNABLES'), 'glibc.malloc.hugetlb=1');
      assert.equal(env.has('PRESSROOM_TEST_SECRET'), false);
      assert.equal(env.has('HOME'), false);
    }
  });
});
