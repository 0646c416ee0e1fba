import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { ContentHashes } from '../src/engines/typst/content-hashes.js';

// A render process gets a file by hash when it holds the same bytes already; a hash remembered
// for a content must therefore never answer for other bytes (src/engines/typst/content-hashes.ts).
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

it('answers every content with the sha256 of exactly its bytes, also where length and sampled bytes agree', () => {
  const hashes = new ContentHashes(1024 * 1024);
  const picture = randomBytes(50_000);
  assert.equal(hashes.of(picture), sha256(picture));
  // The same bytes in a new buffer (the next request's ZIP), and as a slice of a larger one.
  const body = Buffer.concat([randomBytes(100), picture, randomBytes(100)]);
  assert.equal(hashes.of(Buffer.from(picture)), sha256(picture));
  assert.equal(hashes.of(body.subarray(100, 100 + picture.length)), sha256(picture));
  // One byte changed away from the start, the middle and the end: same length, same samples.
  const near = Buffer.from(picture);
  near[10_000] = near[10_000]! ^ 0xff;
  assert.equal(hashes.of(near), sha256(near));
  assert.notEqual(hashes.of(near), sha256(picture));
  assert.equal(hashes.of(Buffer.from(picture)), sha256(picture), 'the first content is still answered right after the second took its place');
});

it('keeps answering right when the remembered contents exceed their bound, and when the caller changes its buffer', () => {
  const hashes = new ContentHashes(64 * 1024);
  const contents = Array.from({ length: 20 }, () => randomBytes(6000));
  for (const c of contents) assert.equal(hashes.of(Buffer.from(c)), sha256(c));
  for (const c of contents) assert.equal(hashes.of(Buffer.from(c)), sha256(c));
  const mutable = randomBytes(8000);
  assert.equal(hashes.of(mutable), sha256(mutable));
  // The remembered content is the store's own copy: bytes written into the caller's buffer
  // afterwards do not make a later, different content look like the first one.
  const first = Buffer.from(mutable);
  mutable[1000] = mutable[1000]! ^ 1;
  assert.equal(hashes.of(Buffer.from(mutable)), sha256(mutable));
  assert.equal(hashes.of(Buffer.from(first)), sha256(first));
});
