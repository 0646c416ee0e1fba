import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { TransformError, Transformer, type TransformRequest } from '../src/engines/xslt/index.js';

const XSL = 'xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:xs="http://www.w3.org/2001/XMLSchema" exclude-result-prefixes="#all"';
const IXSL = 'xmlns:ixsl="http://saxonica.com/ns/interactiveXSLT" xmlns:js="http://saxonica.com/ns/globalJS"';

/** A stylesheet whose `/` template produces `<out>body</out>`. */
const sheet = (body: string, extra = ''): string =>
  `<xsl:stylesheet version="3.0" ${XSL} ${IXSL} ${extra}><xsl:template match="/"><out>${body}</out></xsl:template></xsl:stylesheet>`;

const request = (stylesheet: string, input = '<a/>', more: Partial<TransformRequest> = {}): TransformRequest => ({
  stylesheet: Buffer.from(stylesheet),
  stylesheetName: 'test.xslt',
  input: Buffer.from(input),
  inputType: 'xml',
  ...more,
});

/** The output text, or the error message: what a stylesheet could get out of the sandbox. */
async function attempt(t: Transformer, req: TransformRequest): Promise<{ out?: string; error?: TransformError }> {
  try {
    return { out: (await t.transform(req)).toString() };
  } catch (err) {
    assert.ok(err instanceof TransformError, `expected a TransformError, got ${String(err)}`);
    return { error: err };
  }
}

describe('XSLT transform (SaxonJS)', () => {
  let t: Transformer;
  let work: string;
  let secretFile: string;
  let secret: string;

  before(async () => {
    t = new Transformer({ processes: 2, timeoutMs: 20_000 });
    work = await mkdtemp(join(tmpdir(), 'pressroom-transform-'));
    secret = `secret-${randomBytes(8).toString('hex')}`;
    secretFile = join(work, 'secret.xml');
    await writeFile(secretFile, `<s>${secret}</s>`);
  });
  after(async () => {
    await t.close();
    await rm(work, { recursive: true, force: true });
  });

  it('transforms XML to XML', async () => {
    const xsl = `<xsl:stylesheet version="3.0" ${XSL}>
      <xsl:template match="/order"><invoice total="{sum(item/@price)}"><xsl:apply-templates/></invoice></xsl:template>
      <xsl:template match="item"><line><xsl:value-of select="@name"/></line></xsl:template>
    </xsl:stylesheet>`;
    const out = await t.transform(request(xsl, '<order><item name="a" price="2"/><item name="b" price="3"/></order>'));
    assert.ok(Buffer.isBuffer(out));
    assert.match(out.toString(), /<invoice total="5"><line>a<\/line><line>b<\/line><\/invoice>/);
  });

  it('gives JSON input as json-to-xml($json) and as the $json parameter', async () => {
    const xsl = `<xsl:stylesheet version="3.0" ${XSL} xpath-default-namespace="http://www.w3.org/2005/xpath-functions">
      <xsl:param name="json" as="xs:string"/>
      <xsl:template match="/map">
        <names count="{count(array[@key='people']/map)}" first="{parse-json($json)?people(1)?name}">
          <xsl:for-each select="array[@key='people']/map"><n><xsl:value-of select="string[@key='name']"/></n></xsl:for-each>
        </names>
      </xsl:template>
    </xsl:stylesheet>`;
    const input = JSON.stringify({ people: [{ name: 'Ada' }, { name: 'Grace' }] });
    const out = (await t.transform(request(xsl, input, { inputType: 'json' }))).toString();
    assert.match(out, /<names count="2" first="Ada">\s*<n>Ada<\/n><n>Grace<\/n><\/names>/);
  });

  it('rejects JSON input that is not JSON, readably', async () => {
    const { error } = await attempt(t, request(sheet('<xsl:copy-of select="."/>'), '{"a": ', { inputType: 'json' }));
    assert.equal(error?.code, 'runtime');
    assert.match(error.message, /test\.xslt: .*not valid JSON/);
  });

  it('passes parameters as untyped values', async () => {
    const xsl = `<xsl:stylesheet version="3.0" ${XSL}>
      <xsl:param name="ticket"/><xsl:param name="tenant"/><xsl:param name="copies" as="xs:integer" select="1"/><xsl:param name="custom.key"/>
      <xsl:template match="/"><p t="{$ticket}" te="{$tenant}" c="{$copies * 2}" k="{$custom.key}"/></xsl:template>
    </xsl:stylesheet>`;
    const params = { ticket: 'T-1', tenant: 'acme', copies: '21', 'custom.key': 'v&"<', 'not a name': 'x' };
    const out = (await t.transform(request(xsl, '<a/>', { params }))).toString();
    assert.match(out, /<p t="T-1" te="acme" c="42" k="v&amp;(&quot;|&#34;)&lt;"\/>/);
  });

  it('compiles a stylesheet once per content hash', async () => {
    const xsl = sheet(`<xsl:value-of select="'cache-${randomBytes(4).toString('hex')}'"/>`);
    const before = t.stats();
    await t.transform(request(xsl));
    const out = await t.transform({ ...request(xsl), stylesheetName: 'same-content-other-name.xslt' });
    const after = t.stats();
    assert.match(out.toString(), /cache-/);
    assert.equal(after.compiles - before.compiles, 1, 'the second transform must not compile');
    assert.equal(after.cacheHits - before.cacheHits, 1);
  });

  it('names the stylesheet, the XSLT error code and the line in compile errors', async () => {
    const xsl = `<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">\n<xsl:bogus/>\n</xsl:template>\n</xsl:stylesheet>`;
    const { error } = await attempt(t, { ...request(xsl), stylesheetName: 'orders.xslt' });
    assert.equal(error?.code, 'compile');
    assert.match(error.message, /^orders\.xslt: compile error XTSE0010 at line 3: xsl:bogus is not a known XSLT element/);
    assert.deepEqual(error.detail, { xsltCode: 'XTSE0010', line: 3 });

    const compiles = t.stats().compiles;
    const again = await attempt(t, { ...request(xsl), stylesheetName: 'orders.xslt' });
    assert.equal(again.error?.message, error.message);
    assert.equal(t.stats().compiles, compiles, 'a broken stylesheet is not compiled again');

    const xpath = await attempt(t, request(`<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">\n<xsl:value-of select="1 +"/>\n</xsl:template></xsl:stylesheet>`));
    assert.equal(xpath.error?.code, 'compile');
    assert.match(xpath.error.message, /test\.xslt: compile error XPST0003 at line 3: .*in test\.xslt/);

    const notXml = await attempt(t, request(`<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">`));
    assert.equal(notXml.error?.code, 'compile');
    assert.match(notXml.error.message, /test\.xslt: compile error: the stylesheet is not well-formed XML: .*line 2/);
  });

  it('carries the message of run-time errors', async () => {
    const terminate = `<xsl:stylesheet version="3.0" ${XSL}>\n<xsl:template match="/">\n<xsl:message terminate="yes">no <xsl:value-of select="name(*)"/> here</xsl:message>\n</xsl:template>\n</xsl:stylesheet>`;
    const a = await attempt(t, request(terminate, '<order/>'));
    assert.equal(a.error?.code, 'runtime');
    assert.match(a.error.message, /^test\.xslt: error XTMM9000 at line [23]: .*no order here/);

    const raised = await attempt(t, request(sheet(`<xsl:sequence select="error(QName('urn:acme', 'BAD'), 'price missing')"/>`)));
    assert.equal(raised.error?.code, 'runtime');
    assert.match(raised.error.message, /Q\{urn:acme\}BAD.*price missing/);

    const xml = await attempt(t, request(sheet('<xsl:copy-of select="."/>'), '<a><b></a>'));
    assert.equal(xml.error?.code, 'runtime');
    assert.match(xml.error.message, /the input is not well-formed XML/);

    const recursion = `<xsl:stylesheet version="3.0" ${XSL}><xsl:template match="/"><xsl:call-template name="r"/></xsl:template>
      <xsl:template name="r"><xsl:param name="n" select="0"/><xsl:call-template name="r"><xsl:with-param name="n" select="$n + 1"/></xsl:call-template></xsl:template></xsl:stylesheet>`;
    const deep = await attempt(t, request(recursion));
    assert.equal(deep.error?.code, 'runtime');
    assert.match(deep.error.message, /stack overflow/);
  });

  it('lets xsl:result-document write the principal result (href="")', async () => {
    const out = await t.transform(request(sheet('').replace('<out></out>', '<xsl:result-document href=""><principal/></xsl:result-document>')));
    assert.match(out.toString(), /<principal\/>/);
  });

  it('serializes in the declared output encoding', async () => {
    const xsl = sheet(`<xsl:value-of select="'Grüße'"/>`).replace('<xsl:template', '<xsl:output encoding="ISO-8859-1"/><xsl:template');
    const out = await t.transform(request(xsl));
    assert.match(out.toString('latin1'), /encoding="ISO-8859-1".*<out[^>]*>Grüße<\/out>/);
  });

  describe('sandbox', () => {
    let http: Server;
    let port: number;
    let hits = 0;
    before(async () => {
      http = createServer((_req, res) => {
        hits++;
        res.end('<leak/>');
      });
      await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
      port = (http.address() as AddressInfo).port;
    });
    after(() => new Promise<void>((done) => http.close(() => done())));

    /** Runs a stylesheet that tries to break out; it must fail or yield nothing, leaking no secret. */
    async function mustNotLeak(body: string, expect: 'fails' | 'fails-or-empty' = 'fails-or-empty', extra = '') {
      const { out, error } = await attempt(t, request(sheet(body, extra)));
      const text = out ?? error?.message ?? '';
      for (const leak of [secret, 'root:x:0:0', '<leak/>', '"name": "saxon-js"']) assert.ok(!text.includes(leak), `leaked ${leak}: ${text}`);
      if (expect === 'fails') assert.ok(error, `expected a failure, got ${out}`);
      else if (out !== undefined) assert.match(out, /<out[^>]*\/>|<out[^>]*>(false)?<\/out>/, `expected empty output, got ${out}`);
      return { out, error };
    }

    it('reads no local files', async () => {
      const saxonPackage = resolve('node_modules/saxon-js/package.json');
      for (const path of [secretFile, '/etc/passwd', '/etc/hostname', saxonPackage]) {
        const url = `file://${path}`;
        await mustNotLeak(`<xsl:value-of select="unparsed-text('${path}')"/>`, 'fails');
        await mustNotLeak(`<xsl:value-of select="unparsed-text('${url}')"/>`, 'fails');
        await mustNotLeak(`<xsl:value-of select="unparsed-text-lines('${url}')"/>`, 'fails');
        await mustNotLeak(`<xsl:value-of select="unparsed-text-available('${url}')"/>`);
        await mustNotLeak(`<xsl:copy-of select="doc('${url}')"/>`, 'fails');
        await mustNotLeak(`<xsl:copy-of select="document('${url}')"/>`, 'fails');
        await mustNotLeak(`<xsl:value-of select="doc-available('${url}')"/>`);
        await mustNotLeak(`<xsl:value-of select="serialize(json-doc('${url}'))"/>`, 'fails');
        await mustNotLeak(`<xsl:source-document href="${url}"><xsl:copy-of select="."/></xsl:source-document>`, 'fails');
        await mustNotLeak(`<xsl:copy-of select="transform(map{'stylesheet-location': '${url}'})?output"/>`, 'fails');
      }
      await mustNotLeak(`<xsl:value-of select="count(collection('file://${work}/'))"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="uri-collection('file://${work}/')"/>`);
      const include = await attempt(t, request(`<xsl:stylesheet version="3.0" ${XSL}><xsl:include href="file://${secretFile}"/></xsl:stylesheet>`));
      assert.equal(include.error?.code, 'compile');
      assert.ok(!include.error.message.includes(secret));
    });

    it('writes no files', async () => {
      for (const href of [join(work, `pwned-${randomBytes(4).toString('hex')}.xml`), `/tmp/pwned-${randomBytes(4).toString('hex')}.xml`]) {
        for (const url of [href, `file://${href}`]) {
          const { error } = await attempt(t, request(sheet(`<xsl:result-document href="${url}"><p>pwned</p></xsl:result-document>`)));
          assert.equal(error?.code, 'output');
          assert.match(error.message, /xsl:result-document is not allowed/);
          assert.equal(existsSync(href), false, `${href} was written`);
        }
      }
    });

    it('runs no JavaScript', async () => {
      const marker = join(work, `js-${randomBytes(4).toString('hex')}`);
      const js = `process.getBuiltinModule('fs').writeFileSync('${marker}', 'x')`;
      await mustNotLeak(`<xsl:value-of select="ixsl:eval(&quot;${js}&quot;)"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="js:eval(&quot;${js}&quot;)"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="function-lookup(QName('http://saxonica.com/ns/globalJS', 'eval'), 1)(&quot;${js}&quot;)"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="function-lookup(QName(concat('http://saxonica.com/ns/', 'globalJS'), 'Function'), 1)('return 1')"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="ixsl:call(ixsl:window(), 'eval', [&quot;${js}&quot;])"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="ixsl:get(ixsl:window(), 'process.pid')"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="ixsl:call(ixsl:get(ixsl:window(), 'process'), 'cwd', [])"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="js:parseInt('42')"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="available-environment-variables()"/>`);
      assert.equal(existsSync(marker), false);
    });

    it('reaches no network (the local server gets no request)', async () => {
      const url = `http://127.0.0.1:${port}/`;
      await mustNotLeak(`<xsl:copy-of select="doc('${url}')"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="unparsed-text('${url}')"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="serialize(json-doc('${url}'))"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="doc-available('${url}')"/>`);
      await mustNotLeak(`<xsl:copy-of select="transform(map{'stylesheet-location': '${url}'})?output"/>`, 'fails');
      await mustNotLeak(`<xsl:value-of select="js:fetch('${url}')"/>`, 'fails');
      const include = await attempt(t, request(`<xsl:stylesheet version="3.0" ${XSL}><xsl:import href="${url}"/></xsl:stylesheet>`));
      assert.equal(include.error?.code, 'compile');
      await new Promise((done) => setTimeout(done, 100));
      assert.equal(hits, 0, 'the sandbox reached the local HTTP server');
    });

    it('resolves no external entities', async () => {
      const doctype = `<!DOCTYPE x [<!ENTITY e SYSTEM "file://${secretFile}"><!ENTITY h SYSTEM "file:///etc/hostname">]>`;
      const hostname = existsSync('/etc/hostname') ? readFileSync('/etc/hostname', 'utf8').trim() : secret;
      for (const input of [`${doctype}<x>&e;</x>`, `${doctype}<x>&h;</x>`]) {
        const { out, error } = await attempt(t, request(sheet('<xsl:copy-of select="."/>'), input));
        const text = out ?? error?.message ?? '';
        assert.ok(!text.includes(secret) && !text.includes(hostname), text);
      }
      const parsed = await attempt(t, request(sheet(`<xsl:copy-of select="parse-xml('&lt;!DOCTYPE x [&lt;!ENTITY e SYSTEM &quot;file://${secretFile}&quot;>]>&lt;x>&amp;e;&lt;/x>')"/>`)));
      assert.ok(!(parsed.out ?? parsed.error?.message ?? '').includes(secret));
      const inSheet = await attempt(t, request(`<!DOCTYPE xsl:stylesheet [<!ENTITY e SYSTEM "file://${secretFile}">]>${sheet('&e;')}`));
      assert.ok(!(inSheet.out ?? inSheet.error?.message ?? '').includes(secret));
    });
  });

  it('stops an endless stylesheet at its time limit and keeps serving', async () => {
    const pool = new Transformer({ processes: 1, timeoutMs: 1500 });
    try {
      const endless = `<xsl:stylesheet version="3.0" ${XSL}><xsl:template match="/"><out>
        <xsl:iterate select="1 to 100000000000"><xsl:param name="n" select="0"/><xsl:next-iteration><xsl:with-param name="n" select="$n + 1"/></xsl:next-iteration></xsl:iterate>
      </out></xsl:template></xsl:stylesheet>`;
      // The process is up (started, SaxonJS loaded) before the endless one, so the limit measures
      // that transform alone; start-up itself gets all the time a loaded machine needs.
      await pool.transform(request(sheet('<ok/>'), '<a/>', { timeoutMs: 120_000 }));
      const started = performance.now();
      const { error } = await attempt(pool, request(endless));
      const took = performance.now() - started;
      assert.equal(error?.code, 'timeout');
      assert.match(error.message, /test\.xslt: transform stopped after 1500 ms/);
      // The stylesheet runs for hours unstopped; the bound is loose because a loaded machine is slow to kill.
      assert.ok(took < 30_000, `stopped after ${took} ms`);
      // A fresh process serves this one: its start-up, like the first, gets a loaded machine's time.
      const out = await pool.transform(request(sheet('<after/>'), '<a/>', { timeoutMs: 120_000 }));
      assert.match(out.toString(), /<after\/>/);
      assert.equal(pool.stats().processesStarted, 2);
    } finally {
      await pool.close();
    }
  });

  it('fails the transform whose process dies (memory cap) and replaces the process', async () => {
    // A string of 15 million characters: more than an 80 MiB heap holds, well within the default
    // 512 MiB (30 million fit there). So the same stylesheet passing under the default shows that
    // the cap, not V8's own heap limit, is what stopped it. The time limit is far off, so only the
    // memory cap can end it: the process runs at a lower priority, and this test took 3.3 s on
    // an idle machine, 67 s beside a CI run and two busy loops.
    const big = sheet(
      `<xsl:variable name="s" select="string-join((1 to 10000) ! 'abcdefghij')"/>` +
        `<xsl:variable name="big" select="string-join((1 to 150) ! ($s || .))"/>` +
        `<xsl:value-of select="string-length($big), contains($big, 'zz')"/>`,
    );
    const capped = new Transformer({ processes: 1, maxMemoryMb: 80, timeoutMs: 600_000 });
    try {
      const { error } = await attempt(capped, request(big));
      assert.equal(error?.code, 'runtime');
      assert.match(error.message, /test\.xslt: the transform process ended unexpectedly .*memory/);
      assert.match((await capped.transform(request(sheet('<after/>')))).toString(), /<after\/>/);
      assert.equal(capped.stats().processesStarted, 2, 'a fresh process took the place of the one that died');
    } finally {
      await capped.close();
    }
    const uncapped = new Transformer({ processes: 1, timeoutMs: 600_000 });
    try {
      assert.match((await uncapped.transform(request(big))).toString(), /<out>15000342 false<\/out>/);
    } finally {
      await uncapped.close();
    }
  });

  it('queues requests when every process is busy', async () => {
    const pool = new Transformer({ processes: 1 });
    try {
      const outs = await Promise.all([1, 2, 3, 4].map((n) => pool.transform(request(sheet(`<n>${n}</n>`)))));
      outs.forEach((out, i) => assert.match(out.toString(), new RegExp(`<n>${i + 1}</n>`)));
      assert.equal(pool.stats().processesStarted, 1, 'one process served every request');
    } finally {
      await pool.close();
    }
    await assert.rejects(pool.transform(request(sheet(''))), /closed/);
  });

  it('works the same from the compiled JavaScript (dist), without tsx', async () => {
    const root = resolve('.');
    const build = await mkdtemp(join(tmpdir(), 'pressroom-transform-dist-'));
    try {
      await writeFile(join(build, 'package.json'), '{"type":"module"}');
      await symlink(join(root, 'node_modules'), join(build, 'node_modules'), 'dir');
      await writeFile(
        join(build, 'tsconfig.json'),
        JSON.stringify({
          extends: join(root, 'tsconfig.build.json'),
          compilerOptions: { outDir: join(build, 'dist'), rootDir: join(root, 'src'), sourceMap: false, typeRoots: [join(root, 'node_modules/@types')] },
          include: [],
          files: [join(root, 'src/engines/xslt/index.ts')],
        }),
      );
      await promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(build, 'tsconfig.json')]);
      const entry = join(build, 'dist/engines/xslt/index.js');
      assert.ok(existsSync(entry));
      await mkdir(join(build, 'check'));
      const script = join(build, 'check/run.mjs');
      await writeFile(
        script,
        `import { Transformer } from ${JSON.stringify(entry)};
const t = new Transformer({ processes: 1 });
const sheet = (body) => '<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:ixsl="http://saxonica.com/ns/interactiveXSLT" exclude-result-prefixes="#all"><xsl:template match="/"><out>' + body + '</out></xsl:template></xsl:stylesheet>';
const run = (body) => t.transform({ stylesheet: Buffer.from(sheet(body)), stylesheetName: 'dist.xslt', input: Buffer.from('<a/>'), inputType: 'xml' }).then((b) => b.toString(), (e) => e.code + ': ' + e.message);
const result = {
  plain: await run('<xsl:copy-of select="."/>'),
  file: await run("<xsl:value-of select=\\"unparsed-text('file://${secretFile}')\\"/>"),
  js: await run("<xsl:value-of select=\\"ixsl:get(ixsl:window(), 'process.pid')\\"/>"),
};
await t.close();
console.log(JSON.stringify(result));`,
      );
      const { stdout } = await promisify(execFile)(process.execPath, [script], { env: {} });
      const result = JSON.parse(stdout) as Record<string, string>;
      assert.match(result.plain!, /<out><a\/><\/out>/);
      assert.match(result.file!, /^runtime: .*not available in the transform sandbox/);
      assert.ok(!result.file!.includes(secret));
      assert.match(result.js!, /^runtime: /);
    } finally {
      await rm(build, { recursive: true, force: true });
    }
  });
});
