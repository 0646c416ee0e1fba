import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { pdfText } from './helpers/pdf.js';
import { renderProcesses } from './helpers/processes.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const noProc = existsSync('/proc/self/smaps_rollup') ? false : 'needs /proc (Linux) to read a process’s memory';

/**
 * Anonymous memory in MiB of each Typst render process below this test process (which runs the
 * server): what the process itself allocated, unlike PSS not moved by other processes (other
 * test files' render processes) mapping the same libraries.
 */
function renderProcessMemory(): number[] {
  return renderProcesses().flatMap((pid) => {
    try {
      return [Number(/^Anonymous:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]) / 1024];
    } catch {
      return []; // the process ended while we looked
    }
  });
}

// Forty pages of text per document: several MiB of Typst's layout in native memory each time,
// behind a few small JavaScript objects.
const pages = `#set page(width: 10cm, height: 10cm)
#let n = int(sys.inputs.at("custom.n", default: "0"))
#for p in range(40) [
  = Page #(p + 1) of run #n
  #for i in range(12) [Line #i of page #p, run #n: #lorem(12) \\ ]
  #pagebreak(weak: true)
]
`;

describe('memory of a render process over many documents', () => {
  let t: TestServer;
  let tokens: { jobs: string; admin: string };
  before(async () => {
    t = await startTestServer('sqlite', { renderThreads: 1 });
    tokens = await setupProject(t);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/pages.typ', pages);
  });
  after(() => t.close());

  async function render(n: number): Promise<string> {
    const [id] = await submit(t, tokens.jobs, '<data/>', { query: `documentTemplate=pages&custom=n:${n}` });
    assert.equal((await waitComplete(t, tokens.jobs, id!, 60_000)).status, 'renderpdf.succeeded');
    return id!;
  }

  it('frees each document’s memory after its job instead of letting it pile up', { skip: noProc }, async (ctx) => {
    const first = await render(0);
    assert.match((await pdfText(await artifactPdf(t, tokens.jobs, first))).join(' '), /Page 40 of run 0/);
    for (let n = 1; n < 5; n++) await render(n);
    const [start] = renderProcessMemory();
    assert.ok(start !== undefined, 'no Typst render process found');
    for (let n = 5; n < 45; n++) await render(n);
    const [end] = renderProcessMemory();
    ctx.diagnostic(`render process anonymous memory after 5 documents ${start.toFixed(1)} MiB, after 45 ${end!.toFixed(1)} MiB`);
    assert.ok(end! - start < 60, `the render process grew from ${start.toFixed(1)} to ${end!.toFixed(1)} MiB over 40 documents`);
  });
});
