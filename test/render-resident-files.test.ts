import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pdfFontNames, pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

// Render processes keep shared files (templates, images, fonts of 4 KiB and more) between jobs
// and get them by hash afterwards. What a template reads must still be exactly the job's own
// files: a changed repository file, a ZIP resource and a file of another project.

/** A text file of ~6 KiB (kept by the render process) that starts with `marker`. */
const padded = (marker: string) => `${marker}\n${'x'.repeat(6000)}\n`;
const template = '#let first(path) = read(path).split("\\n").first()\nRepo: #first("/images/note.txt") Zip: #first("/images/extra.txt")\n';

async function render(t: TestServer, token: string, extra: string, project = 'shop'): Promise<string> {
  const zip = await zipOf({ 'data.xml': '<data/>', 'images/extra.txt': padded(extra) });
  const [id] = await submit(t, token, zip, { contentType: 'application/zip', query: 'documentTemplate=reads', project });
  const s = await waitComplete(t, token, id!, undefined, 'acme', project);
  assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
  return (await pdfText(await artifactPdf(t, token, id!, 'acme', project))).join(' ');
}

describeEachStore('render processes keep shared files between jobs', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let other: { jobs: string; admin: string };
  before(async () => {
    // One render process, so every job meets the files the previous ones left in it.
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
    other = await setupProject(t, 'acme', 'other');
    for (const [token, project] of [
      [tokens.admin, 'shop'],
      [other.admin, 'other'],
    ] as const) {
      await putFile(t, token, `tenants/acme/projects/${project}/master-documents/reads.typ`, template);
      await putFile(t, token, `tenants/acme/projects/${project}/images/note.txt`, padded(`${project}-note-1`));
    }
  });
  after(() => t.close());

  it('reads the current repository file, the job own resources, and only its project files', async () => {
    assert.match(await render(t, tokens.jobs, 'zip-A'), /Repo: shop-note-1 Zip: zip-A/);
    // The same files again: sent by hash this time, same result.
    assert.match(await render(t, tokens.jobs, 'zip-A'), /Repo: shop-note-1 Zip: zip-A/);
    // A changed repository file and a new resource with the same names.
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/images/note.txt', padded('shop-note-2'));
    assert.match(await render(t, tokens.jobs, 'zip-B'), /Repo: shop-note-2 Zip: zip-B/);
    // Another project's job on the same process sees its own note under the same path.
    assert.match(await render(t, other.jobs, 'zip-B', 'other'), /Repo: other-note-1 Zip: zip-B/);
    // The resource of the ZIP may equal a repository file byte for byte: both are read.
    assert.match(await render(t, tokens.jobs, 'shop-note-2'), /Repo: shop-note-2 Zip: shop-note-2/);
  });

  it("does not let a job read a file of the job before it that it lacks itself", async () => {
    assert.match(await render(t, tokens.jobs, 'zip-C'), /Zip: zip-C/);
    // The next job on the one process has no images/extra.txt: its read fails as on a fresh process.
    const [id] = await submit(t, tokens.jobs, await zipOf({ 'data.xml': '<data/>' }), { contentType: 'application/zip', query: 'documentTemplate=reads' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.failed', JSON.stringify(s));
    assert.match(s.errorMessage ?? '', /images\/extra\.txt/);
    // And the file is back for a job that has it again.
    assert.match(await render(t, tokens.jobs, 'zip-D'), /Zip: zip-D/);
  });

  it('renders with a repository font, also when the font is sent by hash', async () => {
    const font = readFileSync(createRequire(import.meta.url).resolve('pdfjs-dist/standard_fonts/LiberationSans-Italic.ttf'));
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/fonts/LiberationSans-Italic.ttf', font);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/font.typ', '#set text(font: "Liberation Sans", fallback: false)\n_Set in the project font_\n');
    for (const round of [1, 2]) {
      const [id] = await submit(t, tokens.jobs, '<data/>', { query: 'documentTemplate=font' });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'renderpdf.succeeded', `round ${round}: ${JSON.stringify(s)}`);
      const pdf = await artifactPdf(t, tokens.jobs, id!);
      assert.match((await pdfText(pdf)).join(' '), /Set in the project font/);
      assert.ok((await pdfFontNames(pdf)).some((n) => /LiberationSans/.test(n)), `round ${round}: ${(await pdfFontNames(pdf)).join(', ')}`);
    }
  });
});
