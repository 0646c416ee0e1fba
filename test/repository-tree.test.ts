import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import yazl from 'yazl';
import { repoFiles } from '../src/store/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';

interface Item {
  name: string;
  data?: string | Buffer;
  dir?: boolean;
  mode?: number;
  compress?: boolean;
}

/** A ZIP built by yazl (which deflates with node:zlib deflateRaw). */
async function makeZip(items: Item[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const i of items) {
    if (i.dir) zip.addEmptyDirectory(i.name);
    else zip.addBuffer(Buffer.from(i.data ?? ''), i.name, { compress: i.compress ?? true, ...(i.mode === undefined ? {} : { mode: i.mode }) });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Renames an entry in place (same length), in local and central headers: how zip-slip names are made. */
function rename(zip: Buffer, from: string, to: string): Buffer {
  assert.equal(Buffer.byteLength(from), Buffer.byteLength(to));
  const out = Buffer.from(zip);
  for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + 1)) out.write(to, at);
  return out;
}

/** Visits each central directory header (signature PK\1\2). */
function eachCentral(zip: Buffer, fn: (offset: number) => void): void {
  for (let at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at >= 0; at = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) fn(at);
}

async function snapshot(t: TestServer): Promise<string> {
  const rows = await repoFiles.listRepoFiles(t.server.ctx.db.kysely, '');
  const blobs = await t.server.ctx.blobs.list('repo/');
  return JSON.stringify({ rows: rows.map((r) => [r.path, r.sha256, r.updated]), blobs });
}

interface ErrorBody {
  code: string;
  message: string;
  details: { field?: string; message: string }[];
}

async function setup(t: TestServer): Promise<{ op: string; admin: string }> {
  const op = await t.operatorToken();
  for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=other']) {
    assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
  }
  return { op, admin: await t.token('acme', 'shop', 'admin') };
}

const upload = (t: TestServer, zip: Buffer, token: string, query = '', type = 'application/zip') =>
  t.fetch(`/rest/repository/tree${query}`, { method: 'POST', token, body: zip, headers: { 'content-type': type } });

/** Uploads and expects a refusal with this status and code; nothing stored may change. */
async function refused(t: TestServer, zip: Buffer, token: string, status: number, code: string, message?: RegExp): Promise<ErrorBody> {
  const before = await snapshot(t);
  const res = await upload(t, zip, token);
  const body = (await res.json()) as ErrorBody;
  assert.equal(res.status, status, body.message);
  assert.equal(body.code, code, body.message);
  if (message) assert.match(body.message, message);
  assert.equal(await snapshot(t), before);
  return body;
}

describeEachStore('repository tree upload', (kind) => {
  let t: TestServer;
  let op: string;
  let admin: string;
  before(async () => {
    t = await startTestServer(kind);
    ({ op, admin } = await setup(t));
  });
  after(() => t.close());

  it('stores every file of the ZIP, ignores folders and removes files given empty', async () => {
    await t.fetch(`/rest/repository/files/${P}/old.txt`, { method: 'PUT', token: op, body: 'old' });
    const zip = await makeZip([
      { name: 'restapi/config.ion', data: '{ keepInputForSeconds: 600 }' },
      { name: `${P}/master-documents/`, dir: true },
      { name: `${P}/master-documents/offer.typ`, data: '= Offer' },
      { name: `${P}/old.txt`, data: '' },
      { name: `${P}/never-there.txt`, data: '' },
    ]);
    const res = await upload(t, zip, op);
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { written: { path: string; created: boolean }[]; removed: string[] };
    assert.deepEqual(body.written.map((w) => [w.path, w.created]), [['restapi/config.ion', true], [`${P}/master-documents/offer.typ`, true]]);
    assert.deepEqual(body.removed, [`${P}/old.txt`]);
    assert.equal(await (await t.fetch(`/rest/repository/files/${P}/master-documents/offer.typ`, { token: op })).text(), '= Offer');

    const keep = await upload(t, await makeZip([{ name: `${P}/blank.txt`, data: '' }]), admin, '?removeEmpty=false&cometXmlMode=fileset', 'application/octet-stream');
    assert.equal(keep.status, 200);
    assert.deepEqual(((await keep.json()) as { written: { path: string; size: number }[] }).written.map((w) => [w.path, w.size]), [[`${P}/blank.txt`, 0]]);
  });

  it('refuses entries outside the token project (403 naming the entry), bad options and other media types', async () => {
    const zip = await makeZip([
      { name: `${P}/fine.txt`, data: 'x' },
      { name: 'tenants/acme/projects/other/x.txt', data: 'x' },
    ]);
    await refused(t, zip, admin, 403, 'forbidden', /tenants\/acme\/projects\/other\/x\.txt/);
    await refused(t, await makeZip([{ name: 'restapi/config.ion', data: '{}' }]), admin, 403, 'forbidden', /restapi\/config\.ion/);
    await refused(t, await makeZip([{ name: 'tenants/ghost/x.txt', data: 'x' }]), op, 404, 'not_found', /ghost/);
    const jobs = await t.token('acme', 'shop', 'jobs');
    assert.equal((await upload(t, await makeZip([{ name: `${P}/a.txt`, data: 'x' }]), jobs)).status, 403);
    assert.equal((await upload(t, zip, op, '?cometXmlMode=bogus')).status, 400);
    assert.equal((await upload(t, zip, op, '?removeEmpty=maybe')).status, 400);
    assert.equal((await upload(t, zip, op, '', 'text/plain')).status, 415);
  });

  it('refuses zip-slip names, symlinks, encrypted and duplicate entries with 400 invalid_zip', async () => {
    const base = await makeZip([{ name: 'xx/evil.txt', data: 'evil' }]);
    for (const name of ['../evil.txt', '/x/evil.txt', 'C:/evil.txt', 'x\\evil.txt']) {
      const body = await refused(t, rename(base, 'xx/evil.txt', name.padEnd(11, '_').slice(0, 11)), op, 400, 'invalid_zip');
      assert.ok(body.details[0]!.field, body.message);
    }
    await refused(t, rename(base, 'xx/evil.txt', 'a/./il.txt_'), op, 400, 'invalid_zip', /"\." segment/);
    await refused(t, rename(base, 'xx/evil.txt', 'a\u0000/evil.txt'), op, 400, 'invalid_zip', /control character/);
    await refused(t, await makeZip([{ name: `${P}/link`, data: '/etc/passwd', mode: 0o120777 }]), op, 400, 'invalid_zip', /symbolic link/);
    const encrypted = Buffer.from(await makeZip([{ name: `${P}/secret.txt`, data: 'secret' }]));
    encrypted.writeUInt16LE(encrypted.readUInt16LE(6) | 1, 6);
    eachCentral(encrypted, (at) => encrypted.writeUInt16LE(encrypted.readUInt16LE(at + 8) | 1, at + 8));
    await refused(t, encrypted, op, 400, 'invalid_zip', /encrypted/);
    await refused(t, await makeZip([{ name: `${P}/twice.txt`, data: 'a' }, { name: `${P}/twice.txt`, data: 'b' }]), op, 400, 'invalid_zip', /duplicate/);
    await refused(t, Buffer.from('this is not a zip at all'), op, 400, 'invalid_zip', /not a readable ZIP/);
  });

  it('refuses an entry whose header lies about its size', async () => {
    const zip = await makeZip([{ name: `${P}/liar.txt`, data: Buffer.alloc(5000, 7) }]);
    eachCentral(zip, (at) => zip.writeUInt32LE(100, at + 24));
    await refused(t, zip, op, 400, 'invalid_zip', /size in the ZIP header is wrong/);
  });

  it('refuses a zip bomb and a high compression ratio early, from the first byte, but takes a tiny compressible file', async () => {
    const bomb = await makeZip([{ name: `${P}/bomb.bin`, data: Buffer.alloc(64 * 1024 * 1024) }]);
    assert.ok(bomb.length < 200_000);
    const started = Date.now();
    await refused(t, bomb, op, 400, 'invalid_zip', /compression ratio above 200:1/);
    // Generous: a bomb inflated to the end would take far longer, and the message says where it stopped.
    assert.ok(Date.now() - started < 30_000);
    // Honest header says 2 MiB; lying header (declares 1 MiB, below the ratio floor) is caught while inflating.
    const ratio = await makeZip([{ name: `${P}/zeros.bin`, data: Buffer.alloc(2 * 1024 * 1024) }]);
    await refused(t, ratio, op, 400, 'invalid_zip', /compression ratio/);
    eachCentral(ratio, (at) => ratio.writeUInt32LE(1024 * 1024, at + 24));
    await refused(t, ratio, op, 400, 'invalid_zip', /compression ratio|size in the ZIP header/);
    // The ratio applies from the first byte (a 1 MiB floor let 255 such entries through), with 4 KiB of slack for tiny files.
    const half = await makeZip([{ name: `${P}/zeros.bin`, data: Buffer.alloc(512 * 1024) }]);
    await refused(t, half, op, 400, 'invalid_zip', /compression ratio above 200:1/);
    const small = await makeZip([{ name: `${P}/zeros.bin`, data: Buffer.alloc(4 * 1024) }]);
    assert.equal((await upload(t, small, op)).status, 200);
  });

  it('validates config files and paths inside the ZIP', async () => {
    const body = await refused(t, await makeZip([{ name: `${P}/renderpdf/config.ion`, data: '{ keepOutput: sometimes }' }]), op, 400, 'invalid_config', /renderpdf\/config\.ion/);
    assert.equal(body.details[0]!.field, `${P}/renderpdf/config.ion`);
    assert.match(body.details[0]!.message, /keepOutput/);
    await refused(t, await makeZip([{ name: `${P}/100%.txt`, data: 'x' }]), op, 400, 'invalid_path', /100%\.txt/);
  });
});

describeEachStore('repository tree upload limits', (kind) => {
  it('refuses more entries than zipMaxEntries', async () => {
    const t = await startTestServer(kind, { zipMaxEntries: 5 });
    try {
      const { op } = await setup(t);
      const items = Array.from({ length: 6 }, (_, i) => ({ name: `${P}/f${i}.txt`, data: 'x' }));
      await refused(t, await makeZip(items), op, 400, 'invalid_zip', /6 entries; at most 5/);
      assert.equal((await upload(t, await makeZip(items.slice(0, 5)), op)).status, 200);
    } finally {
      await t.close();
    }
  });

  it('refuses more uncompressed bytes than zipMaxBytes, by header and by actual inflation', async () => {
    const t = await startTestServer(kind, { zipMaxBytes: 100_000 });
    try {
      const { op } = await setup(t);
      const items = Array.from({ length: 3 }, (_, i) => ({ name: `${P}/r${i}.bin`, data: randomBytes(40_000), compress: false }));
      await refused(t, await makeZip(items), op, 400, 'invalid_zip', /more than 100000 bytes/);
      const liar = await makeZip([{ name: `${P}/big.bin`, data: Buffer.alloc(500_000, 1) }]);
      eachCentral(liar, (at) => liar.writeUInt32LE(50_000, at + 24));
      await refused(t, liar, op, 400, 'invalid_zip');
    } finally {
      await t.close();
    }
  });
});
