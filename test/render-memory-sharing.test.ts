import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { residentBytes } from '../src/engines/pool/index.js';
import { pdfText } from './helpers/pdf.js';
import { descendants } from './helpers/processes.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const MiB = 1024 * 1024;
const noProc = existsSync('/proc/self/status') ? false : 'needs /proc (Linux) to watch process memory';

// Typst keeps a whole document until its compile ends: 400 tables of 40 distinct cells need
// about 420 MiB, more than a render process's share of 320 MiB here.
const big = '#for i in range(400) { table(columns: 4, ..range(40).map(k => "Row " + str(i * 40 + k))) }\n';

describe('a big document borrows the memory the other render process leaves unused', () => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    t = await startTestServer('sqlite', { renderThreads: 2, renderMaxMemoryMb: 320, pollMs: 25 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  it('renders a document past its share of the ceiling while the other render process is idle', { skip: noProc }, async (ctx) => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/big.typ', big);
    let peak = 0;
    const watch = setInterval(() => {
      // Render processes are children of this test process, which runs the server.
      for (const pid of descendants(process.pid)) peak = Math.max(peak, residentBytes(pid) ?? 0);
    }, 20);
    try {
      const [id] = await submit(t, tokens.jobs, '<data/>', { query: 'documentTemplate=big' });
      const status = await waitComplete(t, tokens.jobs, id!, 60_000);
      assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
      const pdf = await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.pdf?shipped=false`, { token: tokens.jobs, headers: { accept: '*/*' } });
      assert.equal(pdf.status, 200);
      const text = (await pdfText(Buffer.from(await pdf.arrayBuffer()))).join('\n');
      assert.match(text, /Row 0\b/);
      assert.match(text, /Row 15999\b/);
    } finally {
      clearInterval(watch);
    }
    ctx.diagnostic(`peak of a render process: ${Math.round(peak / MiB)} MiB (share 320, both together 640)`);
    assert.ok(peak > 320 * MiB, `the render process peaked at ${Math.round(peak / MiB)} MiB, within its share: the document does not show the borrowing`);
  });
});
