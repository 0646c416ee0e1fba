import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import * as mupdf from 'mupdf';
import { mergePdfs } from '../src/engines/mupdf/merge.js';

/** A one-page PDF whose content stream carries `bytes` of its own (a comment no other part shares). */
function partWithPayload(bytes: number): Uint8Array {
  const doc = new mupdf.PDFDocument();
  doc.insertPage(-1, doc.addPage([0, 0, 200, 100], 0, {}, `% ${randomBytes(bytes).toString('base64')}\n0 0 1 rg 0 0 50 50 re f`));
  const buffer = doc.saveToBuffer('');
  const out = buffer.asUint8Array().slice();
  buffer.destroy();
  doc.destroy();
  return out;
}

/** Size of MuPDF's WebAssembly memory, which grows when what is allocated outgrows it and never shrinks. */
const wasmBytes = () => {
  const probe = new mupdf.Buffer(new Uint8Array(1));
  const size = probe.asUint8Array().buffer.byteLength;
  probe.destroy();
  return size;
};

it('frees every MuPDF object of a merge before it returns, so the next merge reuses the memory', () => {
  // mupdf.js frees an object when its JavaScript wrapper is collected; no finalizer can run
  // while the merges below hold the thread, so whatever a merge does not release itself stays.
  const parts = Array.from({ length: 150 }, (_, i) => ({ pdf: partWithPayload(100_000), title: `P${i}` }));
  const payload = parts.reduce((sum, p) => sum + p.pdf.length, 0);
  mergePdfs(mupdf, parts.slice(0, 2));
  const before = wasmBytes();
  const first = mergePdfs(mupdf, parts);
  const afterFirst = wasmBytes();
  const second = mergePdfs(mupdf, parts);
  const afterSecond = wasmBytes();
  assert.equal(first.pages, 150);
  assert.deepEqual(second.pdf, first.pdf);
  assert.ok(afterFirst - before >= payload, `the first merge needed memory for its parts (${afterFirst - before} bytes for ${payload})`);
  assert.ok(afterSecond - afterFirst < payload / 4, `the second merge grew memory by ${afterSecond - afterFirst} bytes (parts: ${payload})`);
});
