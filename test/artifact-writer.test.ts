import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, it } from 'node:test';
import { FileBlobStore } from '../src/blobs/index.js';
import type { Context } from '../src/context.js';
import type { TicketRow } from '../src/store/index.js';
import { ArtifactWriter, INLINE_ARTIFACT_MAX } from '../src/steps/step-support.js';
import { attemptFileKey } from '../src/tickets/blob-keys.js';

// A step stores its files side by side. When one of them cannot be stored, the others still get
// their rows, and the file the failure path writes again (the log) keeps a single row.
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pressroom-artifacts-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

it('stores files side by side, keeps the rows in call order, and one row per file when the log is written again after a failure', async () => {
  const ctx = { blobs: new FileBlobStore(root), now: () => 1_700_000_000_000 } as unknown as Context;
  const ticket = { id: 'T1', tenant: 'acme', project: 'shop', attempt: 1 } as TicketRow;
  // A folder where the PDF would go: the rename onto it fails, as a full or broken disk would.
  const blocked = join(root, attemptFileKey(ticket, 'T1.pdf'));
  await mkdir(blocked, { recursive: true });
  await writeFile(join(blocked, 'occupied'), 'x');

  const stored = new ArtifactWriter(ctx, ticket);
  const keep = { until: null, rule: 'forever' };
  await assert.rejects(
    stored.settle([
      stored.put('T1.pdf', 'output', Buffer.from('%PDF'), 'application/pdf', keep),
      stored.put('T1.content.xml', 'content', Buffer.from('<data/>'), 'application/xml', keep),
      stored.put('T1.typst.log', 'log', Buffer.from('rendered'), 'text/plain', keep),
    ]),
  );
  assert.deepEqual(stored.rows.map((r) => r.name), ['T1.content.xml', 'T1.typst.log'], 'the files that were stored, in call order');

  await stored.put('T1.typst.log', 'log', Buffer.from('rendered\nfailed: disk'), 'text/plain', keep);
  assert.deepEqual(stored.rows.map((r) => [r.name, r.size]), [['T1.content.xml', 7], ['T1.typst.log', 21]]);
  assert.equal(stored.rows[1]!.data?.toString(), 'rendered\nfailed: disk', 'a small log is kept in its row');
});

it('keeps logs and content up to the row limit in the row, and outputs and larger files as blobs', async () => {
  const ctx = { blobs: new FileBlobStore(root), now: () => 1_700_000_000_000 } as unknown as Context;
  const ticket = { id: 'T2', tenant: 'acme', project: 'shop', attempt: 2 } as TicketRow;
  const keep = { until: null, rule: 'forever' };
  const stored = new ArtifactWriter(ctx, ticket);
  const atLimit = Buffer.alloc(INLINE_ARTIFACT_MAX, 'a');
  const above = Buffer.alloc(INLINE_ARTIFACT_MAX + 1, 'b');
  await stored.settle([
    stored.put('T2.pdf', 'output', Buffer.from('%PDF-tiny'), 'application/pdf', keep),
    stored.put('T2.content.xml', 'content', atLimit, 'application/xml', keep),
    stored.put('T2.typst.log', 'log', above, 'text/plain', keep),
  ]);
  assert.deepEqual(
    stored.rows.map((r) => [r.name, r.data === null ? 'blob' : 'row', r.size, r.blob_key]),
    [
      ['T2.pdf', 'blob', 9, attemptFileKey(ticket, 'T2.pdf')],
      ['T2.content.xml', 'row', INLINE_ARTIFACT_MAX, attemptFileKey(ticket, 'T2.content.xml')],
      ['T2.typst.log', 'blob', INLINE_ARTIFACT_MAX + 1, attemptFileKey(ticket, 'T2.typst.log')],
    ],
  );
  assert.ok(stored.rows[1]!.data!.equals(atLimit));
  assert.deepEqual((await readdir(join(root, 'jobs/acme/shop/T2'))).sort(), ['a2.T2.pdf', 'a2.T2.typst.log']);
  assert.ok((await readFile(join(root, attemptFileKey(ticket, 'T2.typst.log')))).equals(above));
});
