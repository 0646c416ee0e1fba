// Bad masters, bad input documents, bad images and tables that do not fit: each one a
// PptxError of the right kind whose message names the culprit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PptxError, renderPptx } from '../src/engines/pptx/index.js';
import { writeZip } from '../src/engines/pptx/zip-write.js';
import { readZip } from '../src/zip/index.js';
import { cloneMaster, defaultMaster, render } from './fixtures/pptx/render.js';
import { tinyPng } from './helpers/png.js';

const refused = (promise: Promise<unknown>, kind: string, message: RegExp) =>
  assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof PptxError, `not a PptxError: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, message);
    return true;
  });

const withMaster = (master: Buffer, slides = '<slide layout="Blank"/>') => render(slides, { master });

/** The default master with some parts replaced (or added). */
async function patchedMaster(replace: Record<string, (old: string) => string>, extra: Record<string, Buffer> = {}): Promise<Buffer> {
  const entries = await readZip(defaultMaster(), { maxEntries: 100, maxBytes: 10_000_000 });
  const out = entries.flatMap((e) => (e.kind === 'file' ? [{ name: e.name, compress: true, data: replace[e.name] ? Buffer.from(replace[e.name]!(e.data.toString())) : e.data }] : []));
  for (const [name, data] of Object.entries(extra)) out.push({ name, data, compress: true });
  return writeZip(out);
}

const XXE = '<!DOCTYPE a [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';

describe('bad masters', () => {
  it('refuses a master that is not a ZIP', async () => {
    await refused(withMaster(Buffer.from('%PDF-1.7 not a deck')), 'master', /the master is not a PPTX file: not a readable ZIP/);
  });

  it('refuses a ZIP without a presentation', async () => {
    await refused(withMaster(await writeZip([{ name: 'hello.txt', data: Buffer.from('hi'), compress: true }])), 'master', /no \[Content_Types\]\.xml/);
    const noPresentation = await patchedMaster({ '_rels/.rels': (s) => s.replace(/<Relationship [^>]*officeDocument"[^>]*\/>/, '') });
    await refused(withMaster(noPresentation), 'master', /no ppt\/presentation\.xml/);
    const word = await patchedMaster({ 'ppt/presentation.xml': () => '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>' });
    await refused(withMaster(word), 'master', /not a presentation/);
  });

  it('refuses a DOCTYPE or an entity in any part, without resolving it', async () => {
    const inPresentation = await patchedMaster({ 'ppt/presentation.xml': (s) => s.replace('<p:presentation', `${XXE}<p:presentation`) });
    await refused(withMaster(inPresentation), 'master', /master part ppt\/presentation\.xml declares a DOCTYPE/);
    // docProps/core.xml is never parsed, but would reach the client's office suite.
    const inCore = await patchedMaster({ 'docProps/core.xml': (s) => s.replace('<cp:coreProperties', `${XXE}<cp:coreProperties`) });
    await refused(withMaster(inCore), 'master', /docProps\/core\.xml declares a DOCTYPE/);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="UTF-16"?>${XXE}<a/>`, 'utf16le')]);
    await refused(withMaster(await patchedMaster({}, { 'ppt/extra.xml': utf16 })), 'master', /ppt\/extra\.xml declares a DOCTYPE/);
    const vml = Buffer.from(`${XXE}<xml xmlns:v="urn:schemas-microsoft-com:vml"/>`);
    await refused(withMaster(await patchedMaster({}, { 'ppt/drawings/vmlDrawing1.vml': vml })), 'master', /vmlDrawing1\.vml declares a DOCTYPE/);
  });

  it('refuses unsafe ZIP names, too many entries and bombs', async () => {
    const named = await writeZip([{ name: 'ppt/aa/x.xml', data: Buffer.from('<a/>'), compress: false }]);
    const slip = Buffer.from(named.toString('latin1').replaceAll('ppt/aa/x.xml', 'ppt/../x.xml'), 'latin1');
    await refused(withMaster(slip), 'master', /"\.\." segments are not allowed/);
    const many = await writeZip(Array.from({ length: 5001 }, (_, i) => ({ name: `f${i}.xml`, data: Buffer.from('<a/>'), compress: false })));
    await refused(withMaster(many), 'master', /5001 entries; at most 5000/);
    const bomb = await patchedMaster({}, { 'ppt/media/zeros.bin': Buffer.alloc(4 * 1024 * 1024) });
    await refused(withMaster(bomb), 'master', /compression ratio above 200:1/);
  });

  it('refuses a part whose XML is broken', async () => {
    const broken = await patchedMaster({ 'ppt/slideLayouts/slideLayout1.xml': (s) => s.replace('</p:sldLayout>', '') });
    await refused(withMaster(broken), 'master', /master part ppt\/slideLayouts\/slideLayout1\.xml is not well-formed XML/);
  });
});

describe('bad input documents', () => {
  it('refuses a DOCTYPE in the input', async () => {
    const data = Buffer.from(`${XXE}<presentation><slide layout="Blank"/></presentation>`);
    await refused(renderPptx({ master: defaultMaster(), data, resources: new Map(), options: {}, log: () => {} }), 'input', /DOCTYPE/);
  });

  it('says what is wrong and where', async () => {
    await refused(render('<slide layout="Blank" clone="1"/>'), 'input', /slide 1: give exactly one of layout/);
    await refused(render('<slide layout="Blank"/><slide layout="Blank"><text/></slide>'), 'input', /slide 2: <text> is not allowed in <slide>/);
    await refused(render('<slide layout="Blank"><field name="x"><span color="red">r</span></field></slide>'), 'input', /field "x": color "red" is not a hex colour/);
    await refused(render('<slide layout="Blank"><field name="x"><a href="javascript:alert(1)">r</a></field></slide>'), 'input', /links must be http\(s\):\/\/ or mailto: URLs/);
    await refused(render('<slide layout="Blank"><field name="x"><p level="12">r</p></field></slide>'), 'input', /paragraph 1: level "12" is not 1 to 9/);
    await refused(render('<slide layout="Blank"><field name="x">text<image src="a.png"/></field></slide>'), 'input', /<image> must be the only content/);
    await refused(render('<slide layout="Blank"><field>x</field></slide>'), 'input', /<field> needs a name/);
    await refused(render(`<slide layout="Blank"><field name="x">${'<b>'.repeat(300)}deep${'</b>'.repeat(300)}</field></slide>`), 'input', /nests elements deeper than 256 levels/);
    await assert.rejects(
      renderPptx({ master: defaultMaster(), data: Buffer.from('<data><item/></data>'), resources: new Map(), options: {}, log: () => {} }),
      /root element is <data>; renderpptx expects <presentation>/,
    );
  });

  it('names a layout that does not exist, with the ones that do, in a fatal line of the render log', async () => {
    await refused(render('<slide layout="Comparison"/>'), 'layout', /layout "Comparison" does not exist in the master deck; its layouts are "Title Slide", "Title and Content"/);
    const logs: string[] = [];
    const data = Buffer.from('<presentation><slide layout="Comparison"/></presentation>');
    await assert.rejects(renderPptx({ master: defaultMaster(), data, resources: new Map(), options: {}, log: (level, m) => logs.push(`${level}: ${m}`) }));
    assert.match(logs.at(-1)!, /^fatal: layout: layout "Comparison" does not exist/);
  });

  it('names a slide to clone that does not exist', async () => {
    await refused(render('<slide clone="4"/>', { master: await cloneMaster() }), 'layout', /slide 4 to clone does not exist; the master deck has 3 slide/);
    await refused(render('<slide clone="Finale"/>', { master: await cloneMaster() }), 'layout', /slide "Finale" to clone does not exist/);
  });

  it('names a shape that does not exist, with the ones that do', async () => {
    await refused(render('<slide layout="Title Only"><field name="Subtitle">x</field></slide>'), 'shape', /slide 1, field "Subtitle": no placeholder named or placeholder of type or shape named "Subtitle" on this slide; placeholders: "Title" \(title\)/);
    await refused(render('<slide clone="Product"><field name="Logo">text</field></slide>', { master: await cloneMaster() }), 'shape', /field "Logo": shape "Logo" is a picture and takes no text/);
  });

  it('rejects bad option values', async () => {
    await refused(render('<slide layout="Blank"/>', { options: { insertNewSlidesAfter: -1 } }), 'input', /insertNewSlidesAfter -1 is not a slide number/);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('maxExecutionMillis exceeded'));
    await assert.rejects(renderPptx({ master: defaultMaster(), data: Buffer.from('<presentation><slide layout="Blank"/></presentation>'), resources: new Map(), options: {}, log: () => {}, signal: controller.signal }), /maxExecutionMillis exceeded/);
  });
});

describe('bad images', () => {
  const image = (data: Buffer | undefined, src = 'images/x.png') =>
    render(`<slide layout="Picture with Caption"><field name="pic"><image src="${src}"/></field></slide>`, { resources: data ? { 'images/x.png': data } : {} });

  it('refuses images that are missing or cannot be decoded', async () => {
    await refused(image(undefined), 'image', /image "images\/x\.png" is not among the job's resources/);
    await refused(image(Buffer.from('hello, world')), 'image', /image "images\/x\.png" cannot be decoded: neither PNG, JPEG nor GIF/);
    await refused(image(tinyPng(10, 10).subarray(0, 20)), 'image', /a PNG signature without an IHDR header/);
    await refused(image(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a])), 'image', /a truncated JPEG/);
    await refused(image(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x10, 0x4a, 0x46])), 'image', /a JPEG without a frame header/);
    const empty = tinyPng(1, 1);
    empty.writeUInt32BE(0, 16);
    await refused(image(empty), 'image', /its size 0 × 1 px is not usable/);
  });
});

describe('tables that do not fit', () => {
  const rows = (n: number, text = 'x') => Array.from({ length: n }, () => `<row><cell>${text}</cell></row>`).join('');

  it('overflow="error" refuses rows beyond the shape', async () => {
    await refused(render(`<slide layout="Title and Content"><field name="body"><table overflow="error">${rows(40)}</table></field></slide>`), 'table', /field "body": 40 rows do not fit the shape \(about \d+ do\)/);
  });

  it('refuses more columns than the shape is wide for, and a row taller than the shape', async () => {
    const wide = `<row>${'<cell>c</cell>'.repeat(40)}</row>`;
    await refused(render(`<slide layout="Two Content"><field name="body"><table>${wide}</table></field></slide>`), 'table', /the table has 40 columns but the shape is 5\.67 in wide, room for at most 18/);
    await refused(render(`<slide layout="Section Header"><field name="Text"><table>${rows(1, 'long words '.repeat(500))}</table></field></slide>`), 'table', /row 1 needs about [\d.]+ in but the shape is only 1\.64 in tall/);
  });

  it('lets only one table per slide continue', async () => {
    await refused(
      render(`<slide layout="Two Content"><field name="Left Content"><table>${rows(30)}</table></field><field name="Right Content"><table>${rows(30)}</table></field></slide>`),
      'table',
      /only one table per slide may continue/,
    );
  });

  it('refuses an input that would make too many slides', async () => {
    await refused(render(`<slide layout="Title and Content"><field name="body"><table>${rows(40_000)}</table></field></slide>`), 'input', /more than 2000 slides/);
  });
});
