import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, it } from 'node:test';
import { harness, type Harness } from './helpers/blob-harness.js';
import { describeEachBlobStore } from './helpers/s3.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A stream of `total` bytes in chunks, optionally failing after `failAfter` bytes. */
function chunks(total: number, seed: number, failAfter?: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) return this.destroy(new Error('source broke'));
      if (sent >= total) return this.push(null);
      const n = Math.min(256 * 1024, total - sent);
      const chunk = Buffer.alloc(n, (seed + sent / 1024) % 251);
      sent += n;
      this.push(chunk);
    },
  });
}

async function collect(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describeEachBlobStore('BlobStore contract', (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness(kind);
  });
  afterEach(() => h.cleanup());

  it('puts and gets buffers and streams, and reports their size', async () => {
    const data = Buffer.from('hello, blob');
    assert.equal(await h.store.put('jobs/a/b/t1/input', data), data.length);
    assert.deepEqual(await h.store.get('jobs/a/b/t1/input'), data);
    assert.equal(await h.store.put('jobs/a/b/t1/streamed', Readable.from([Buffer.from('one '), Buffer.from('two')])), 7);
    assert.equal((await h.store.get('jobs/a/b/t1/streamed'))?.toString(), 'one two');
    assert.deepEqual(await collect(await h.store.stream('jobs/a/b/t1/input')), data);
    const info = await h.store.stat('jobs/a/b/t1/input');
    assert.equal(info?.size, data.length);
    assert.ok(info && Math.abs(info.modified - Date.now()) < 10 * 60_000, `modified ${info?.modified}`);
    assert.equal(await h.store.size('jobs/a/b/t1/streamed'), 7);
    assert.equal(await h.store.put('empty', Buffer.alloc(0)), 0);
    assert.deepEqual(await h.store.get('empty'), Buffer.alloc(0));
    assert.equal(await h.store.size('empty'), 0);
  });

  it('streams exact byte ranges', async () => {
    const data = Buffer.from('0123456789abcdefghij');
    await h.store.put('r/file', data);
    assert.equal((await collect(await h.store.stream('r/file', { start: 0, end: 0 })))?.toString(), '0');
    assert.equal((await collect(await h.store.stream('r/file', { start: 3, end: 7 })))?.toString(), '34567');
    assert.equal((await collect(await h.store.stream('r/file', { start: 15, end: 19 })))?.toString(), 'fghij');
    assert.deepEqual(await collect(await h.store.stream('r/file', { start: 0, end: 19 })), data);
    assert.equal(await h.store.stream('r/missing', { start: 0, end: 1 }), undefined);
  });

  it('streams a large blob in (multipart on S3) and out, byte for byte', async () => {
    const size = 12 * 1024 * 1024 + 123;
    assert.equal(await h.store.put('big/out.pdf', chunks(size, 7)), size);
    const expected = await collect(chunks(size, 7));
    const stream = await h.store.stream('big/out.pdf');
    assert.ok(stream);
    const hash = createHash('sha256');
    let n = 0;
    for await (const c of stream) {
      hash.update(c as Buffer);
      n += (c as Buffer).length;
    }
    assert.equal(n, size);
    assert.equal(hash.digest('hex'), sha(expected!));
    const tail = await collect(await h.store.stream('big/out.pdf', { start: size - 10, end: size - 1 }));
    assert.deepEqual(tail, expected!.subarray(size - 10));
    assert.equal(await h.partials(), 0, 'no partial write left');
  });

  it('overwrites: the last complete write wins, and rewriting the same content is harmless', async () => {
    await h.store.put('k/x', Buffer.from('first'));
    await h.store.put('k/x', Buffer.from('second, longer'));
    assert.equal((await h.store.get('k/x'))?.toString(), 'second, longer');
    await h.store.put('k/x', Buffer.from('second, longer'));
    assert.deepEqual(await h.store.list('k/'), ['k/x']);
  });

  it('deletes, and deleting what is missing is fine', async () => {
    await h.store.put('d/one', Buffer.from('1'));
    await h.store.put('d/two', Buffer.from('2'));
    await h.store.delete('d/one', { pruneFolder: true });
    assert.equal(await h.store.get('d/one'), undefined);
    assert.equal((await h.store.get('d/two'))?.toString(), '2');
    await h.store.delete('d/one');
    await h.store.delete('never/there', { pruneFolder: true });
    await h.store.put('gone/folder/x', Buffer.from('x'));
    await h.store.deletePrefix('gone/');
    await h.store.deletePrefix('gone/');
    assert.deepEqual(await h.store.list('gone/'), []);
    assert.deepEqual(await h.store.list('d/'), ['d/two']);
  });

  it('writes into a folder again after its prefix was deleted, and after another process removed it', async () => {
    await h.store.put('again/t1/a1/out.pdf', Buffer.from('one'));
    await h.store.deletePrefix('again/t1/');
    await h.store.put('again/t1/a1/out.pdf', Buffer.from('two'));
    assert.equal((await h.store.get('again/t1/a1/out.pdf'))?.toString(), 'two');
    await h.store.put('again/t2/a1/log', Buffer.from('three'));
    await h.removeBehindItsBack('again/t2/');
    await h.store.put('again/t2/a1/log', Buffer.from('four'));
    assert.equal((await h.store.get('again/t2/a1/log'))?.toString(), 'four');
    assert.deepEqual(await h.store.list('again/'), ['again/t1/a1/out.pdf', 'again/t2/a1/log']);
  });

  it('writes a blob nothing names yet in place: readable, replaced by a second write, no leftovers, a failed write leaves nothing', async () => {
    const pdf = Buffer.alloc(300 * 1024, 7);
    assert.equal(await h.store.putUnreferenced('jobs/t/p/9/a1/9.pdf', pdf), pdf.length);
    assert.equal(await h.store.putUnreferenced('jobs/t/p/9/a1/9.typst.log', Buffer.from('first')), 5);
    assert.equal(await h.store.putUnreferenced('jobs/t/p/9/a1/9.typst.log', Buffer.from('again')), 5);
    assert.equal(sha((await h.store.get('jobs/t/p/9/a1/9.pdf'))!), sha(pdf));
    assert.equal((await h.store.get('jobs/t/p/9/a1/9.typst.log'))?.toString(), 'again');
    // After its folder went behind the store's back (another process's housekeeping), it is made again.
    await h.removeBehindItsBack('jobs/t/p/9/');
    await h.store.putUnreferenced('jobs/t/p/9/a2/9.pdf', Buffer.from('%PDF'));
    assert.deepEqual(await h.raw(), [`${h.prefix}jobs/t/p/9/a2/9.pdf`], 'nothing but the blob itself: no temp file');
    // Files only: a file cannot be a folder too (an object store has no folders).
    if (kind === 'file') await assert.rejects(h.store.putUnreferenced('jobs/t/p/9/a2/9.pdf/x', Buffer.from('under a blob')), /EEXIST|ENOTDIR/);
    await assert.rejects(h.store.putUnreferenced('../outside', Buffer.from('x')), /invalid blob key/);
    assert.equal((await h.store.get('jobs/t/p/9/a2/9.pdf'))?.toString(), '%PDF', 'a refused write harms nothing stored');
  });

  it('answers undefined for missing keys', async () => {
    assert.equal(await h.store.get('no/such/key'), undefined);
    assert.equal(await h.store.stream('no/such/key'), undefined);
    assert.equal(await h.store.stat('no/such/key'), undefined);
    assert.equal(await h.store.size('no/such/key'), undefined);
    assert.deepEqual(await h.store.list('no/'), []);
    assert.deepEqual(await h.store.listPage('no/'), { keys: [], next: null });
  });

  it('lists by prefix in byte order, page by page', async () => {
    const keys = ['p/a/1', 'p/a/2', 'p/ab/3', 'p/b', 'p/c/d/e', 'q/outside', 'p/Z', 'p/é', 'p/日本'];
    for (const k of keys) await h.store.put(k, Buffer.from(k));
    const under = ['p/Z', 'p/a/1', 'p/a/2', 'p/ab/3', 'p/b', 'p/c/d/e', 'p/é', 'p/日本'];
    assert.deepEqual(await h.store.list('p/'), under);
    assert.deepEqual(await h.store.list('p/a'), ['p/a/1', 'p/a/2', 'p/ab/3'], 'a prefix needs no folder boundary');
    assert.deepEqual(await h.store.list('p/a/'), ['p/a/1', 'p/a/2']);
    const pages: string[][] = [];
    let after: string | null = null;
    do {
      const page: { keys: string[]; next: string | null } = await h.store.listPage('p/', { after, limit: 3 });
      pages.push(page.keys);
      after = page.next;
    } while (after !== null && pages.length < 10);
    assert.deepEqual(pages.flat(), under);
    assert.ok(pages.length >= 3 && pages.every((p) => p.length <= 3), JSON.stringify(pages));
    assert.deepEqual((await h.store.listPage('p/', { after: 'p/b', limit: 100 })).keys, ['p/c/d/e', 'p/é', 'p/日本']);
    const all = await h.store.listPage('p/', { limit: under.length });
    assert.deepEqual(all.keys, under);
  });

  it('keeps one whole value when writers race on one key', async () => {
    const values = Array.from({ length: 8 }, (_, i) => Buffer.alloc(64 * 1024 + i, 65 + i));
    await Promise.all(values.map((v, i) => h.store.put('race/key', i % 2 ? v : Readable.from([v.subarray(0, 1000), v.subarray(1000)]))));
    const got = await h.store.get('race/key');
    assert.ok(got && values.some((v) => v.equals(got)), 'the blob is exactly one of the written values');
    assert.deepEqual(await h.store.list('race/'), ['race/key']);
    assert.equal(await h.partials(), 0);
  });

  it('takes every character a repository path allows', async () => {
    const keys = [
      'repo/tenants/acme/projects/shop/master-documents/Rechnung (v2) + Anhang@büro_1-final.typ',
      'repo/Ünïcödé/日本語 ファイル/Ελληνικά.txt',
      'repo/combining e\u0301 and n\u0303/x',
      'repo/digits ٣٤٥ ⅷ/.hidden',
      'repo/a.b..c/...',
    ];
    for (const [i, key] of keys.entries()) {
      await h.store.put(key, Buffer.from(`content ${i}`));
      assert.equal((await h.store.get(key))?.toString(), `content ${i}`, key);
      assert.equal(await h.store.size(key), `content ${i}`.length, key);
    }
    assert.deepEqual([...(await h.store.list('repo/'))].sort(), [...keys].sort());
    for (const key of keys) await h.store.delete(key);
    assert.deepEqual(await h.store.list('repo/'), []);
  });

  it('refuses keys that could escape or collide', async () => {
    for (const bad of ['', '../x', 'a/../b', './a', 'a//b', '/a', 'a/', 'a\\b', 'a%2fb', ' a', 'a /b', 'a~b', 'a\u0000b', 'a:b', 'a*b', 'x'.repeat(1025)]) {
      await assert.rejects(h.store.put(bad, Buffer.from('x')), /invalid blob key/, JSON.stringify(bad));
      await assert.rejects(h.store.get(bad), /invalid blob key/, JSON.stringify(bad));
    }
  });

  it('stores every key under its prefix, and nothing partial after a failed write', async () => {
    await h.store.put('jobs/t/p/1/a1/out.pdf', Buffer.from('%PDF'));
    await assert.rejects(h.store.put('jobs/t/p/1/a1/broken.pdf', chunks(7 * 1024 * 1024, 3, 6 * 1024 * 1024)));
    assert.equal(await h.store.get('jobs/t/p/1/a1/broken.pdf'), undefined, 'a failed write leaves no object');
    assert.deepEqual(await h.store.list('jobs/'), ['jobs/t/p/1/a1/out.pdf']);
    assert.equal(await h.partials(), 0, 'a failed upload is aborted');
    const raw = await h.raw();
    assert.deepEqual(raw, [`${h.prefix}jobs/t/p/1/a1/out.pdf`]);
  });

  it('removes partial writes a crashed process left behind', async () => {
    await h.store.put('jobs/t/p/2/input', Buffer.from('<x/>'));
    await h.leavePartialWrite('jobs/t/p/2/a1/out.pdf');
    assert.equal(await h.partials(), 1);
    assert.deepEqual(await h.store.list('jobs/'), ['jobs/t/p/2/input'], 'a partial write is no blob');
    // moto reports every multipart upload as initiated on 2010-11-10, so only files can show that a recent one is kept.
    if (kind === 'file') assert.equal(await h.store.removeStaleTemp(Date.now() - 3600_000), 0, 'a recent partial write may still be running');
    assert.equal(await h.store.removeStaleTemp(Date.now() + 60_000), 1);
    assert.equal(await h.partials(), 0);
    assert.deepEqual(await h.store.list('jobs/'), ['jobs/t/p/2/input']);
  });

  it('passes its own check', async () => {
    await h.store.check();
    assert.ok(h.store.description.length > 0);
  });
});
