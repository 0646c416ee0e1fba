import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDefaultMaster } from '../src/engines/pptx/default-master/index.js';
import { attr, child } from '../src/engines/pptx/xml.js';
import { find } from './fixtures/pptx/deck.js';
import { cloneMaster, render, tinyGif, tinyJpeg } from './fixtures/pptx/render.js';
import { tinyPng } from './helpers/png.js';

describe('renderPptx: slides from layouts', () => {
  it('makes the slides in input order, each from its layout, with text in the right placeholder', async () => {
    const { deck, slides } = await render(`
      <slide layout="Title Slide"><field name="title">Quarterly report</field><field name="subTitle">Q3 2025</field></slide>
      <slide layout="Title and Content"><field name="title">Agenda</field><field name="body">Everything</field></slide>
      <slide layout="Two Content"><field name="Title">Two</field><field name="Left Content">left</field><field name="Right Content">right</field></slide>
      <slide layout="section header"><field name="title">Part 2</field></slide>
      <slide layout="Blank"/>`);
    assert.equal(slides, 5);
    assert.deepEqual(deck.slides.map((s) => s.layout), ['Title Slide', 'Title and Content', 'Two Content', 'Section Header', 'Blank']);
    const [s1, s2, s3, s4, s5] = deck.slides;
    assert.equal(s1!.shapes.find((s) => s.phType === 'ctrTitle')!.text, 'Quarterly report');
    assert.equal(s1!.shapes.find((s) => s.phType === 'subTitle')!.text, 'Q3 2025');
    assert.equal(s2!.shape('Title').text, 'Agenda');
    assert.equal(s2!.shape('Content').text, 'Everything');
    assert.equal(s2!.shape('Content').phIdx, '1');
    assert.deepEqual([s3!.shape('Left Content').text, s3!.shape('Right Content').text], ['left', 'right']);
    assert.equal(s4!.shape('Title').text, 'Part 2');
    assert.equal(s4!.shape('Text').text, '', 'an unfilled placeholder stays, empty');
    assert.deepEqual(s5!.shapes, [], 'footers stay on the layout');
    assert.equal(deck.contentType(s1!.part), 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml');
  });

  it('writes rich text: runs, bullets with levels, alignment, breaks and links with slide relationships', async () => {
    const { deck } = await render(`
      <slide layout="Title and Content"><field name="title">T</field><field name="body">
        <p>Plain <b>bold</b> <i>italic</i> <u>under</u> <span color="#c00000" size="20" font="Courier New">code</span></p>
        <p level="2" bullet="disc">second level</p>
        <p bullet="number" align="center">numbered<br/>next line</p>
        <p bullet="none">no bullet <a href="https://example.com/x?a=1&amp;b=2">a link</a> and <a href="mailto:a@example.com">mail</a></p>
      </field></slide>`);
    const slide = deck.slides[0]!;
    const body = slide.shape('Content');
    assert.equal(body.text, 'Plain bold italic under code\nsecond level\nnumberednext line\nno bullet a link and mail');
    const ps = find(body.el, 'p');
    const rPr = (i: number, r: number) => child(find(ps[i]!, 'r')[r]!, 'rPr')!;
    assert.equal(rPr(0, 1).attrs.b, '1');
    assert.equal(rPr(0, 3).attrs.i, '1');
    assert.equal(rPr(0, 5).attrs.u, 'sng');
    assert.equal(rPr(0, 7).attrs.sz, '2000');
    assert.equal(attr(find(rPr(0, 7), 'srgbClr')[0], 'val'), 'C00000');
    assert.equal(attr(find(rPr(0, 7), 'latin')[0], 'typeface'), 'Courier New');
    assert.equal(child(ps[1]!, 'pPr')!.attrs.lvl, '1');
    assert.equal(attr(find(ps[1]!, 'buChar')[0], 'char'), '•');
    assert.equal(child(ps[2]!, 'pPr')!.attrs.algn, 'ctr');
    assert.equal(find(ps[2]!, 'buAutoNum').length, 1);
    assert.equal(find(ps[2]!, 'br').length, 1);
    assert.equal(find(ps[3]!, 'buNone').length, 1);
    const links = find(ps[3]!, 'hlinkClick').map((h) => slide.rels.find((r) => r.id === h.attrs['r:id'])!);
    assert.deepEqual(links.map((l) => [l.type, l.target, l.external]), [
      ['hyperlink', 'https://example.com/x?a=1&b=2', true],
      ['hyperlink', 'mailto:a@example.com', true],
    ]);
  });

  it('collapses whitespace like HTML unless xml:space="preserve"', async () => {
    const { deck } = await render(`<slide layout="Title and Content"><field name="title">
        Spread   over
        lines </field><field name="body" xml:space="preserve">a  b
c</field></slide>`);
    assert.equal(deck.slides[0]!.shape('Title').text, 'Spread over lines');
    const body = deck.slides[0]!.shape('Content');
    assert.equal(body.text, 'a  bc');
    assert.equal(find(body.el, 'br').length, 1);
  });

  it('sets slide names and hides slides', async () => {
    const { deck } = await render('<slide layout="Blank" name="Appendix" hidden="true"/>');
    assert.equal(attr(child(deck.slides[0]!.xml, 'cSld'), 'name'), 'Appendix');
    assert.equal(deck.slides[0]!.xml.attrs.show, '0');
    const shown = await render('<slide clone="Appendix"/><slide clone="1" hidden="false"/>', { master: (await render('<slide layout="Blank" name="Appendix" hidden="true"/>')).pptx, options: { keepExistingSlides: false } });
    assert.deepEqual(shown.deck.slides.map((s) => s.xml.attrs.show), ['0', undefined], 'a clone stays hidden unless hidden="false"');
  });
});

describe('renderPptx: images', () => {
  const resources = { 'images/wide.png': tinyPng(400, 100), 'images/tall.jpg': tinyJpeg(50, 200), 'images/anim.gif': tinyGif(300, 300) };

  it('places images into picture and content placeholders, aspect kept and centred in the box', async () => {
    const { deck, logs } = await render(
      `<slide layout="Picture with Caption"><field name="pic"><image src="images/wide.png" alt="A gradient"/></field><field name="Caption">c</field></slide>
       <slide layout="Two Content"><field name="body"><image src="/images/tall.jpg"/></field><field name="body"><image src="images/anim.gif"/></field></slide>
       <slide layout="Title and Content"><field name="body"><image src="./images/wide.png"/></field></slide>`,
      { resources },
    );
    assert.ok(logs.some((l) => /deck written/.test(l)));
    const pic = deck.slides[0]!.shape('Picture');
    assert.equal(pic.kind, 'pic');
    assert.equal(pic.phType, 'pic', 'the picture stays linked to its placeholder');
    assert.equal(attr(find(pic.el, 'cNvPr')[0], 'descr'), 'A gradient');
    // The layout's picture box is 6172200 × 4873625: a 4:1 image fills the width.
    assert.deepEqual(pic.box, { x: 5183188, y: 987425 + Math.round((4873625 - 1543050) / 2), cx: 6172200, cy: 1543050 });
    const rel = deck.slides[0]!.rels.find((r) => r.id === attr(find(pic.el, 'blip')[0], 'embed'))!;
    assert.equal(rel.type, 'image');
    assert.equal(deck.contentType(rel.target), 'image/png');

    const [left, right] = [deck.slides[1]!.shape('Left Content'), deck.slides[1]!.shape('Right Content')];
    assert.equal(left.kind, 'pic');
    assert.equal(left.phIdx, '1');
    assert.ok(Math.abs(left.box!.cx / left.box!.cy - 50 / 200) < 0.001, 'JPEG aspect kept');
    assert.equal(left.box!.cy, 4351338, 'a tall image fills the height');
    assert.equal(right.box!.cx, right.box!.cy, 'GIF aspect kept');
    assert.equal(deck.contentType(deck.slides[1]!.rels.find((r) => r.type === 'image' && r.target.endsWith('.jpeg'))!.target), 'image/jpeg');

    const media = [...deck.parts.keys()].filter((p) => p.startsWith('ppt/media/'));
    assert.equal(media.length, 3, 'one media part per image, however many slides use it');
  });

  it('fit="cover" fills the box and crops the overflow evenly', async () => {
    const { deck } = await render('<slide layout="Title and Content"><field name="body"><image src="images/wide.png" fit="cover"/></field></slide>', { resources });
    const pic = deck.slides[0]!.shape('Content');
    assert.deepEqual([pic.box!.cx, pic.box!.cy], [10515600, 4351338]);
    const crop = find(pic.el, 'srcRect')[0]!;
    assert.equal(crop.attrs.l, crop.attrs.r);
    assert.ok(Number(crop.attrs.l) > 0 && crop.attrs.t === undefined);
  });

  it('replaces named shapes on a cloned slide: a box becomes a picture, a picture gets a new bitmap and keeps its outline', async () => {
    const { deck } = await render('<slide clone="Product"><field name="Photo"><image src="images/wide.png"/></field><field name="Logo"><image src="images/tall.jpg"/></field></slide>', {
      master: await cloneMaster(),
      options: { keepExistingSlides: false },
      resources,
    });
    const slide = deck.slides[0]!;
    const photos = slide.shapes.filter((s) => s.name === 'Photo');
    assert.deepEqual(photos.map((p) => p.kind), ['pic', 'sp'], 'the first free shape of that name takes it');
    assert.deepEqual(photos[0]!.box, { x: 838200, y: 3000000 + 1125000, cx: 3000000, cy: 750000 });
    const logo = slide.shape('Logo');
    assert.equal(find(logo.el, 'ln').length, 1, 'outline kept');
    assert.ok(Math.abs(logo.box!.cx / logo.box!.cy - 0.25) < 0.001);
    const target = slide.rels.find((r) => r.id === attr(find(logo.el, 'blip')[0], 'embed'))!.target;
    assert.match(target, /\.jpeg$/);
  });
});

describe('renderPptx: tables', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => `<row><cell>S-${i + 1}</cell><cell>Part ${i + 1}</cell><cell>${i + 1}</cell></row>`).join('');

  it('puts a table with a header row into a content placeholder', async () => {
    const { deck } = await render(`<slide layout="Title and Content"><field name="title">Parts</field><field name="body"><table>
      <columns><column width="1"/><column width="3"/><column width="1"/></columns>
      <header><cell>SKU</cell><cell>Name</cell><cell>Qty</cell></header>${rows(3)}<row><cell><b>Total</b></cell></row></table></field></slide>`);
    const frame = deck.slides[0]!.shape('Content');
    assert.equal(frame.kind, 'graphicFrame');
    assert.equal(frame.phIdx, '1');
    assert.equal(frame.text, 'SKU | Name | Qty\nS-1 | Part 1 | 1\nS-2 | Part 2 | 2\nS-3 | Part 3 | 3\nTotal |  | ');
    assert.equal(attr(find(frame.el, 'tblPr')[0], 'firstRow'), '1');
    const widths = find(frame.el, 'gridCol').map((g) => Number(g.attrs.w));
    assert.equal(widths.reduce((a, b) => a + b, 0), 10515600);
    assert.ok(Math.abs(widths[1]! / widths[0]! - 3) < 0.001);
  });

  it('continues rows that do not fit on copies of the slide, header repeated', async () => {
    const { deck, logs } = await render(`<slide layout="Title and Content"><field name="title">Parts</field><field name="body"><table><header><cell>SKU</cell><cell>Name</cell><cell>Qty</cell></header>${rows(40)}</table></field><notes>n</notes></slide><slide layout="Blank"/>`);
    assert.equal(deck.slides.length, 5);
    const tables = deck.slides.slice(0, 4).map((s) => s.shape('Content').text.split('\n'));
    assert.ok(tables.every((t) => t[0] === 'SKU | Name | Qty'));
    assert.deepEqual(tables.flatMap((t) => t.slice(1)), Array.from({ length: 40 }, (_, i) => `S-${i + 1} | Part ${i + 1} | ${i + 1}`));
    assert.ok(deck.slides.slice(0, 4).every((s) => s.shape('Title').text === 'Parts' && s.notes === 'n'));
    assert.equal(deck.slides[4]!.layout, 'Blank');
    assert.ok(logs.some((l) => /table continued on 3 more slide/.test(l)));
  });

  it('uses a table style instead of its own formatting when one is named', async () => {
    const { deck } = await render('<slide layout="Title and Content"><field name="body"><table style="{5c22544a-7ee6-4342-b048-85bdc9fd1c3a}"><row><cell>x</cell></row></table></field></slide>');
    const frame = deck.slides[0]!.shape('Content');
    assert.equal(find(frame.el, 'tableStyleId')[0]!.children[0], '{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}');
    assert.equal(find(frame.el, 'lnL').length, 0);
  });
});

describe('renderPptx: notes and clones', () => {
  it('adds notes slides and the notes master they need, with links', async () => {
    const { deck } = await render('<slide layout="Title Slide"><field name="title">A</field><notes><p>Say <a href="https://example.com">hello</a></p><p>Second</p></notes></slide><slide layout="Blank"/>');
    assert.equal(deck.slides[0]!.notes, 'Say hello\nSecond');
    assert.equal(deck.slides[1]!.notes, undefined);
    const notesPart = deck.slides[0]!.rels.find((r) => r.type === 'notesSlide')!.target;
    const notesRels = deck.rels(notesPart);
    assert.equal(notesRels.find((r) => r.type === 'slide')!.target, deck.slides[0]!.part);
    const master = notesRels.find((r) => r.type === 'notesMaster')!.target;
    assert.ok(deck.rels(master).some((r) => r.type === 'theme' && deck.parts.has(r.target)));
    assert.ok(notesRels.some((r) => r.type === 'hyperlink' && r.target === 'https://example.com'));
    const pres = deck.xml('ppt/presentation.xml');
    assert.equal(find(pres, 'notesMasterId').length, 1);
    assert.equal(deck.contentType(master), 'application/vnd.openxmlformats-officedocument.presentationml.notesMaster+xml');
  });

  it('clones master slides by number and by name, keeping the formatting of the shapes it fills', async () => {
    const { deck } = await render(
      `<slide clone="2"><field name="Price">249.90</field></slide>
       <slide clone="Intro"><field name="title">Hello</field></slide>
       <slide clone="Product sheet"><field name="Price">9.99</field></slide>`,
      { master: await cloneMaster(), options: { keepExistingSlides: false } },
    );
    assert.equal(deck.slides.length, 3);
    const [a, b, c] = deck.slides;
    assert.equal(a!.shape('Price').text, '249.90');
    const rPr = find(a!.shape('Price').el, 'rPr')[0]!;
    assert.deepEqual([rPr.attrs.sz, rPr.attrs.b, attr(find(rPr, 'srgbClr')[0], 'val')], ['3200', '1', 'C00000']);
    assert.equal(a!.shape('Title').text, 'Product sheet');
    assert.equal(b!.shape('Title').text, 'Hello');
    assert.equal(c!.shape('Price').text, '9.99');
    assert.equal(a!.layout, 'Title Only');
    assert.notEqual(a!.part, c!.part);
    assert.ok(deck.parts.has('ppt/media/logo.png'), 'the image the clone shares is kept');
  });

  it('copies the notes of a cloned slide, or replaces them when the input has notes', async () => {
    const first = await render('<slide layout="Title Slide"><field name="title">A</field><notes>original</notes></slide>');
    const { deck } = await render('<slide clone="1"/><slide clone="1"><notes>replaced</notes></slide>', { master: first.pptx });
    assert.deepEqual(deck.slides.map((s) => s.notes), ['original', 'original', 'replaced']);
    const notesParts = deck.slides.map((s) => s.rels.find((r) => r.type === 'notesSlide')!.target);
    assert.equal(new Set(notesParts).size, 3, 'each slide owns its notes slide');
    notesParts.forEach((n, i) => assert.equal(deck.rels(n).find((r) => r.type === 'slide')!.target, deck.slides[i]!.part));
    assert.equal(find(deck.xml('ppt/presentation.xml'), 'notesMasterId').length, 1, 'the existing notes master is reused');
  });

  it('drops links to master slides that are left out, keeps those to slides that stay', async () => {
    const jump = '<p:sp><p:nvSpPr><p:cNvPr id="5" name="Jump"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US"><a:hlinkClick r:id="rIdJump" action="ppaction://hlinksldjump"/></a:rPr><a:t>to the end</a:t></a:r></a:p></p:txBody></p:sp>';
    const master = await buildDefaultMaster({
      slides: [
        { layout: 'Blank', name: 'Start', shapes: jump, rels: [['rIdJump', 'slide', 'slide2.xml']] },
        { layout: 'Blank', name: 'End', shapes: '' },
      ],
    });
    const links = (r: Awaited<ReturnType<typeof render>>) => [find(r.deck.slides[0]!.xml, 'hlinkClick').length, r.deck.slides[0]!.rels.filter((x) => x.type === 'slide').length];
    assert.deepEqual(links(await render('<slide clone="Start"/>', { master, options: { insertNewSlidesAfter: 0 } })), [1, 1]);
    const dropped = await render('<slide clone="Start"/>', { master, options: { keepExistingSlides: false } });
    assert.deepEqual(links(dropped), [0, 0]);
    assert.equal(dropped.deck.slides[0]!.shape('Jump').text, 'to the end');
  });

  it('warns about an optional field without a target and goes on', async () => {
    const { deck, logs } = await render('<slide layout="Blank"><field name="subtitle" optional="true">x</field></slide>');
    assert.equal(deck.slides.length, 1);
    assert.ok(logs.some((l) => /^warn: slide 1, field "subtitle": no matching shape/.test(l)));
  });

  it('writes the same bytes for the same input', async () => {
    const a = await render('<slide layout="Title Slide"><field name="title">A</field><notes>n</notes></slide>');
    const b = await render('<slide layout="Title Slide"><field name="title">A</field><notes>n</notes></slide>');
    assert.ok(a.pptx.equals(b.pptx));
  });
});
