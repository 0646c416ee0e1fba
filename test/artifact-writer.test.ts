import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, it } from 'node:test';
import { FileBlobStore } from '../src/blobs/index.js';
import type { Context } from '../src/context.js';
import type { TicketRow } from '../src/store/index.js';
import { ArtifactWriter } from '../src/steps/step-support.js';
import { attemptFileKey } from '../src/tickets/blob-keys.js';

// A step stores its files side by side. When one of them cannot be stored, the others still get
// their rows, and the file the failure path writes again (the log) keeps a single row.
let root: string;
/** The row limit these tests run with (`PRESSROOM_INLINE_FILE_MAX_BYTES`). */
const LIMIT = 1024;
const contextFor = (root: string) => ({ blobs: new FileBlobStore(root), now: () => 1_700_000_000_000, settings: { inlineFileMaxBytes: LIMIT } }) as unknown as Context;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pressroom-artifacts-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

it('stores files side by side, keeps the rows in call order, and one row per file when the log is written again after a failure', async () => {
  const ctx = contextFor(root);
  const ticket = { id: 'T1', tenant: 'acme', project: 'shop', attempt: 1 } as TicketRow;
  // A folder where the PDF would go: the rename onto it fails, as a full or broken disk would.
  const blocked = join(root, attemptFileKey(ticket, 'T1.pdf'));
  await mkdir(blocked, { recursive: true });
  await writeFile(join(blocked, 'occupied'), 'x');

  const stored = new ArtifactWriter(ctx, ticket);
  const keep = { until: null, rule: 'forever' };
  await assert.rejects(
    stored.settle([
      stored.put('T1.pdf', 'output', Buffer.alloc(LIMIT + 1, '%'), 'application/pdf', keep),
      stored.put('T1.content.xml', 'content', Buffer.from('<data/>'), 'application/xml', keep),
      stored.put('T1.typst.log', 'log', Buffer.from('rendered'), 'text/plain', keep),
    ]),
  );
  assert.deepEqual(stored.rows.map((r) => r.name), ['T1.content.xml', 'T1.typst.log'], 'the files that were stored, in call order');

  await stored.put('T1.typst.log', 'log', Buffer.from('rendered\nfailed: disk'), 'text/plain', keep);
  assert.deepEqual(stored.rows.map((r) => [r.name, r.size]), [['T1.content.xml', 7], ['T1.typst.log', 21]]);
  assert.equal(stored.rows[1]!.data?.toString(), 'rendered\nfailed: disk', 'a small log is kept in its row');
});

it('keeps files up to the row limit in their rows, whatever their kind, and larger ones as blobs', async () => {
  const ctx = contextFor(root);
  const ticket = { id: 'T2', tenant: 'acme', project: 'shop', attempt: 2 } as TicketRow;
  const keep = { until: null, rule: 'forever' };
  const stored = new ArtifactWriter(ctx, ticket);
  const atLimit = Buffer.alloc(LIMIT, 'a');
  const above = Buffer.alloc(LIMIT + 1, 'b');
  await stored.settle([
    stored.put('T2.pdf', 'output', atLimit, 'application/pdf', keep),
    stored.put('T2.png', 'output', above, 'image/png', keep),
    stored.put('T2.content.xml', 'content', atLimit, 'application/xml', keep),
    stored.put('T2.typst.log', 'log', above, 'text/plain', keep),
  ]);
  assert.deepEqual(
    stored.rows.map((r) => [r.name, r.data === null ? 'blob' : 'row', r.size, r.blob_key]),
    [
      ['T2.pdf', 'row', LIMIT, attemptFileKey(ticket, 'T2.pdf')],
      ['T2.png', 'blob', LIMIT + 1, attemptFileKey(ticket, 'T2.png')],
      ['T2.content.xml', 'row', LIMIT, attemptFileKey(ticket, 'T2.content.xml')],
      ['T2.typst.log', 'blob', LIMIT + 1, attemptFileKey(ticket, 'T2.typst.log')],
    ],
  );
  assert.ok(stored.rows[0]!.data!.equals(atLimit));
  assert.deepEqual((await readdir(join(root, 'jobs/acme/shop/T2'))).sort(), ['a2.T2.png', 'a2.T2.typst.log']);
  assert.ok((await readFile(join(root, attemptFileKey(ticket, 'T2.typst.log')))).equals(above));
});

it('keeps every file in the blob store when the row limit is 0', async () => {
  const ctx = { ...contextFor(root), settings: { inlineFileMaxBytes: 0 } } as unknown as Context;
  const ticket = { id: 'T3', tenant: 'acme', project: 'shop', attempt: 1 } as TicketRow;
  const stored = new ArtifactWriter(ctx, ticket);
  await stored.put('T3.typst.log', 'log', Buffer.from('x'), 'text/plain', { until: null, rule: 'forever' });
  assert.equal(stored.rows[0]!.data, null);
  assert.equal((await readFile(join(root, attemptFileKey(ticket, 'T3.typst.log')))).toString(), 'x');
});
