import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
  assert.equal(await readFile(join(root, attemptFileKey(ticket, 'T1.typst.log')), 'utf8'), 'rendered\nfailed: disk');
});
