// The parts of media assets below the render step: which values are asset URLs, what the
// caching headers allow, the disk cache's bounds, and MediaAssets' report on its own.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cachePolicy, findAssetUrls, MediaAssets, sniffImageType } from '../src/assets/index.js';
import { AssetCache } from '../src/assets/disk-cache.js';
import { serve, startAssetServer, type AssetServer } from './helpers/asset-server.js';
import { tinyPng } from './helpers/png.js';

const xml = (s: string) => Buffer.from(s);

describe('asset URLs in the data', () => {
  it('takes image URLs from leaf text and attributes, by extension or by field name', () => {
    const data = xml(`<d xmlns:x="urn:x"><a>  https://cdn.example/a.PNG  </a><b src="http://cdn.example/render?id=1"/>
      <x:logo>https://cdn.example/logo</x:logo><home>https://example.com/</home><doc>https://cdn.example/a.pdf</doc>
      <mixed>see <i>https://cdn.example/b.png</i></mixed><c><![CDATA[https://cdn.example/c.webp?w=1&h=2]]></c>
      <again>https://cdn.example/a.PNG</again><ftp>ftp://cdn.example/x.png</ftp><rel>/images/x.png</rel></d>`);
    assert.deepEqual(findAssetUrls(data, 'xml', 50), {
      urls: ['https://cdn.example/a.PNG', 'http://cdn.example/render?id=1', 'https://cdn.example/logo', 'https://cdn.example/b.png', 'https://cdn.example/c.webp?w=1&h=2'],
      dropped: 0,
      refused: [],
    });
  });

  it('walks JSON string values with their keys, caps the count and refuses credentials', () => {
    const data = Buffer.from(JSON.stringify({ items: [{ photo: 'https://a.example/1' }, { img: 'https://a.example/2.gif' }, 'https://a.example/3.jpg'], u: 'https://user:pw@a.example/4.png' }));
    assert.deepEqual(findAssetUrls(data, 'json', 2), {
      urls: ['https://a.example/1', 'https://a.example/2.gif'],
      dropped: 1,
      refused: [{ url: 'https://user:pw@a.example/4.png', reason: 'URLs with user name or password are not downloaded' }],
    });
  });

  it('ignores overlong values and broken data without failing', () => {
    assert.deepEqual(findAssetUrls(xml(`<d><a>https://a.example/${'x'.repeat(3000)}.png</a></d>`), 'xml', 5).urls, []);
    assert.deepEqual(findAssetUrls(xml('<d><a>https://a.example/ok.png</a><b>'), 'xml', 5).urls, ['https://a.example/ok.png']);
    assert.deepEqual(findAssetUrls(Buffer.from('{"a": "https://a.example/x.png"'), 'json', 5).urls, []);
  });

  it('recognises image bytes whatever the name says', () => {
    assert.equal(sniffImageType(tinyPng(2, 2)), 'png');
    assert.equal(sniffImageType(Buffer.from('\uFEFF<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')), 'svg');
    assert.equal(sniffImageType(Buffer.from('<html><body>svg</body></html>')), null);
  });
});

describe('HTTP caching headers', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  const day = 86_400_000;
  it('honours max-age, s-maxage, Age and Expires, capped at the TTL', () => {
    assert.equal(cachePolicy({ 'cache-control': 'max-age=60' }, now, day).freshUntil, now + 60_000);
    assert.equal(cachePolicy({ 'cache-control': 'max-age=60, s-maxage=10' }, now, day).freshUntil, now + 10_000);
    assert.equal(cachePolicy({ 'cache-control': 'max-age=60', age: '50' }, now, day).freshUntil, now + 10_000);
    assert.equal(cachePolicy({ expires: 'Sun, 01 Jun 2025 13:00:00 GMT', date: 'Sun, 01 Jun 2025 12:00:00 GMT' }, now, day).freshUntil, now + 3_600_000);
    assert.equal(cachePolicy({ 'cache-control': 'max-age=31536000' }, now, day).freshUntil, now + day);
  });

  it('uses 10% of the Last-Modified age without explicit freshness, and revalidates no-cache every time', () => {
    assert.equal(cachePolicy({ 'last-modified': 'Tue, 27 May 2025 12:00:00 GMT' }, now, day).freshUntil, now + day / 2);
    const noCache = cachePolicy({ 'cache-control': 'no-cache', etag: '"a"' }, now, day);
    assert.deepEqual([noCache.store, noCache.freshUntil, noCache.etag], [true, now, '"a"']);
  });

  it('does not keep no-store, Vary: *, or what could never be reused; marks private', () => {
    assert.equal(cachePolicy({ 'cache-control': 'no-store, max-age=60' }, now, day).store, false);
    assert.equal(cachePolicy({ 'cache-control': 'max-age=60', vary: 'Accept, *' }, now, day).store, false);
    assert.equal(cachePolicy({}, now, day).store, false);
    const priv = cachePolicy({ 'cache-control': 'private, max-age=60' }, now, day);
    assert.deepEqual([priv.store, priv.private], [true, true]);
  });
});

describe('the disk cache', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pressroom-asset-cache-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const entry = (url: string, size: number, tenant: string | null = null, storedAt = 0) => ({
    meta: { url, tenant, storedAt, freshUntil: storedAt + 1000, type: 'png' as const, headers: {} },
    data: Buffer.alloc(size, 1),
  });

  it('keeps private entries per tenant and drops entries past the TTL', async () => {
    const cache = new AssetCache(join(dir, 'a'), 1_000_000, 60_000);
    await cache.put(entry('https://x/p.png', 10, 'acme', 1000), 1000);
    assert.ok(await cache.get('https://x/p.png', 'acme', 2000));
    assert.equal(await cache.get('https://x/p.png', 'globex', 2000), null);
    assert.equal(await cache.get('https://x/p.png', 'acme', 61_000), null);
    assert.deepEqual(await readdir(join(dir, 'a')), [], 'the expired entry is removed');
  });

  it('evicts the least recently used entries once over its size, down to 90%', async () => {
    const cache = new AssetCache(join(dir, 'b'), 10_000, 3_600_000);
    await cache.get('https://x/none.png', 't', 0); // first use scans the folder
    await cache.idle();
    for (let i = 0; i < 4; i++) await cache.put(entry(`https://x/${i}.png`, 2000, null, 1000 + i), 1000 + i);
    await cache.get('https://x/0.png', 't', 2000); // 0 is now the most recently used
    await cache.put(entry('https://x/4.png', 2000, null, 3000), 3000);
    await cache.idle();
    const present = [];
    for (let i = 0; i < 5; i++) if (await cache.get(`https://x/${i}.png`, 't', 4000)) present.push(i);
    assert.deepEqual(present, [0, 2, 3, 4], '1, the least recently used, made room');
  });
});

describe('MediaAssets on its own', () => {
  let cdn: AssetServer;
  let dir: string;
  before(async () => {
    cdn = await startAssetServer();
    dir = await mkdtemp(join(tmpdir(), 'pressroom-assets-'));
  });
  after(async () => {
    await cdn.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports exact counters and shares a download between concurrent jobs of one tenant', async () => {
    const image = tinyPng(30, 30);
    cdn.route('/shared.png', serve(image, { 'content-type': 'image/png', 'cache-control': 'no-store' }, { delayMs: 1000 }));
    const assets = new MediaAssets({ cacheDir: dir, cacheBytes: 1e7, cacheTtlSeconds: 60, maxBytes: 1e6, timeoutMs: 60_000, maxCount: 10, allowPrivateAddresses: ['127.0.0.1'] });
    try {
      const data = xml(`<d><img>${cdn.base}/shared.png</img><img2>${cdn.base}/shared.png#frag</img2></d>`);
      const [a, b] = await Promise.all([0, 1].map(() => assets.prepare({ tenant: 'acme', data, dataType: 'xml', now: Date.now })));
      assert.equal(cdn.count('/shared.png'), 1);
      const reports = [a!.report, b!.report].map((r) => ({ ...r, msec: 0 })).sort((x, y) => y.requests - x.requests);
      assert.deepEqual(reports, [
        { requests: 1, bytes: image.length, msec: 0, cacheHits: 0, failed: 0 },
        { requests: 0, bytes: 0, msec: 0, cacheHits: 1, failed: 0 },
      ]);
      assert.equal(a!.files.length, 1, 'two spellings of one URL are one file');
      assert.equal(a!.assetsInput.split('\n').length, 2, 'both spellings are in the mapping');
    } finally {
      await assets.close();
    }
  });
});
