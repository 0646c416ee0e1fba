// Each mapping option of renderpptx/config.ion, shown by the difference it makes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildDefaultMaster } from '../src/engines/pptx/default-master/index.js';
import { PptxError, type PptxOptions } from '../src/engines/pptx/index.js';
import { writeZip } from '../src/engines/pptx/zip-write.js';
import { readZip } from '../src/zip/index.js';
import { find } from './fixtures/pptx/deck.js';
import { cloneMaster, render } from './fixtures/pptx/render.js';

const ph = (id: number, name: string, phXml: string, y: number) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>${phXml}</p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="838200" y="${y}"/><a:ext cx="5000000" cy="600000"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p/></p:txBody></p:sp>`;
const box = (id: number, name: string, y: number) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="6500000" y="${y}"/><a:ext cx="5000000" cy="600000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p/></p:txBody></p:sp>`;

/**
 * One master slide built to make the rules visible: a title placeholder named "Headline",
 * a content placeholder named "title", two body placeholders both named "Col", and text
 * boxes "Headline", "Tag" and "Tag".
 */
const mappingMaster = () =>
  buildDefaultMaster({
    slides: [
      {
        layout: 'Title and Content',
        name: 'Mapping',
        shapes:
          ph(2, 'Headline', '<p:ph type="title"/>', 300000) +
          ph(3, 'title', '<p:ph idx="1"/>', 1000000) +
          ph(4, 'Col', '<p:ph type="body" idx="2"/>', 2000000) +
          ph(5, 'Col', '<p:ph type="body" idx="3"/>', 3000000) +
          box(6, 'Headline', 300000) +
          box(7, 'Tag', 1000000) +
          box(8, 'Tag', 2000000),
      },
    ],
  });

async function mapped(fields: string, options: PptxOptions) {
  const { deck } = await render(`<slide clone="Mapping">${fields}</slide>`, { master: await mappingMaster(), options: { keepExistingSlides: false, ...options } });
  const s = deck.slides[0]!;
  // Text of every shape, "name/kind" → text, in tree order.
  return s.shapes.map((sh) => `${sh.name}${sh.phType ? `(${sh.phType})` : ''}=${sh.text}`);
}

const refused = async (promise: Promise<unknown>, kind: string, message: RegExp) =>
  assert.rejects(promise, (err: unknown) => err instanceof PptxError && err.kind === kind && message.test(err.message));

describe('mapping options', () => {
  it('mapPlaceholdersByName: a placeholder named like the field comes first; off, the name is tried as a type and a shape name', async () => {
    assert.deepEqual(await mapped('<field name="title">x</field><field name="Headline">y</field>', {}), [
      'Headline(title)=y', 'title(obj)=x', 'Col(body)=', 'Col(body)=', 'Headline=', 'Tag=', 'Tag=',
    ]);
    assert.deepEqual(await mapped('<field name="title">x</field><field name="Headline">y</field>', { mapPlaceholdersByName: false }), [
      'Headline(title)=x', 'title(obj)=', 'Col(body)=', 'Col(body)=', 'Headline=y', 'Tag=', 'Tag=',
    ]);
  });

  it('mapPlaceholdersByType: off, a field named after a type finds nothing', async () => {
    assert.deepEqual((await mapped('<field name="body">b</field>', {}))[2], 'Col(body)=b');
    await refused(mapped('<field name="body">b</field>', { mapPlaceholdersByType: false }), 'shape', /no placeholder named or shape named "body" on this slide; placeholders: "Headline" \(title\)/);
  });

  it('mapShapesByName: off, a plain shape cannot be filled', async () => {
    assert.deepEqual((await mapped('<field name="Tag">t</field>', {}))[5], 'Tag=t');
    await refused(mapped('<field name="Tag">t</field>', { mapShapesByName: false }), 'shape', /field "Tag": no placeholder named or placeholder of type "Tag"/);
  });

  it('allowMultiplePlaceholderPerName: one field fills every placeholder of that name instead of the next free one', async () => {
    assert.deepEqual((await mapped('<field name="Col">1</field><field name="Col">2</field>', {})).slice(2, 4), ['Col(body)=1', 'Col(body)=2']);
    assert.deepEqual((await mapped('<field name="Col">1</field>', {})).slice(2, 4), ['Col(body)=1', 'Col(body)=']);
    assert.deepEqual((await mapped('<field name="Col">1</field>', { allowMultiplePlaceholderPerName: true })).slice(2, 4), ['Col(body)=1', 'Col(body)=1']);
    await refused(mapped('<field name="Col">1</field><field name="Col">2</field><field name="Col">3</field>', {}), 'shape', /every placeholder named "Col" \(2\) is filled already/);
  });

  it('allowMultiplePlaceholderPerType: one field fills every placeholder of that type', async () => {
    const two = async (options: PptxOptions) => {
      const { deck } = await render('<slide layout="Two Content"><field name="body">same</field></slide>', { options });
      return [deck.slides[0]!.shape('Left Content').text, deck.slides[0]!.shape('Right Content').text];
    };
    assert.deepEqual(await two({}), ['same', '']);
    assert.deepEqual(await two({ allowMultiplePlaceholderPerType: true }), ['same', 'same']);
  });

  it('allowMultipleShapesPerName: one field fills every shape of that name', async () => {
    assert.deepEqual((await mapped('<field name="Tag">t</field>', {})).slice(5), ['Tag=t', 'Tag=']);
    assert.deepEqual((await mapped('<field name="Tag">t</field>', { allowMultipleShapesPerName: true })).slice(5), ['Tag=t', 'Tag=t']);
  });
});

describe('slide options', () => {
  const titles = async (options: PptxOptions) => {
    const r = await render('<slide layout="Title Only"><field name="title">NEW</field></slide>', { master: await cloneMaster(), options });
    return { titles: r.deck.slides.map((s) => s.shapes.find((sh) => sh.phType === 'title')?.text ?? s.shapes[0]!.text), r };
  };

  it('insertNewSlidesAfter: new slides go after that master slide (default: the last; 0: first)', async () => {
    assert.deepEqual((await titles({})).titles, ['Welcome', 'Product sheet', 'Thank you', 'NEW']);
    assert.deepEqual((await titles({ insertNewSlidesAfter: 1 })).titles, ['Welcome', 'NEW', 'Product sheet', 'Thank you']);
    assert.deepEqual((await titles({ insertNewSlidesAfter: 0 })).titles, ['NEW', 'Welcome', 'Product sheet', 'Thank you']);
    const beyond = await titles({ insertNewSlidesAfter: 9 });
    assert.deepEqual(beyond.titles, ['Welcome', 'Product sheet', 'Thank you', 'NEW']);
    assert.ok(beyond.r.logs.some((l) => /^warn: insertNewSlidesAfter 9/.test(l)));
  });

  it('keepExistingSlides: false leaves the master slides (and the parts only they used) out', async () => {
    const kept = await titles({ keepExistingSlides: true });
    assert.equal(kept.r.slides, 4);
    assert.ok(kept.r.deck.parts.has('ppt/media/logo.png'));
    const dropped = await titles({ keepExistingSlides: false, insertNewSlidesAfter: 1 });
    assert.deepEqual(dropped.titles, ['NEW']);
    assert.equal(dropped.r.slides, 1);
    assert.deepEqual([...dropped.r.deck.parts.keys()].filter((p) => /^ppt\/(slides|media)\/[^/]+$/.test(p)), [dropped.r.deck.slides[0]!.part]);
    assert.ok(dropped.r.logs.some((l) => /insertNewSlidesAfter is ignored/.test(l)));
    assert.equal(find(dropped.r.deck.xml('docProps/app.xml'), 'Slides')[0]!.children[0], '1');
  });

  it('keepExistingSlides and insertNewSlidesAfter keep PowerPoint sections consistent', async () => {
    const entries = await readZip(await cloneMaster(), { maxEntries: 100, maxBytes: 10_000_000 });
    const sections =
      '<p:extLst><p:ext uri="{521415D9-36F7-43E2-AB2F-B90AF26B5E84}"><p14:sectionLst xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main">' +
      '<p14:section name="Intro" id="{11111111-1111-1111-1111-111111111111}"><p14:sldIdLst><p14:sldId id="256"/></p14:sldIdLst></p14:section>' +
      '<p14:section name="Rest" id="{22222222-2222-2222-2222-222222222222}"><p14:sldIdLst><p14:sldId id="257"/><p14:sldId id="258"/></p14:sldIdLst></p14:section>' +
      '</p14:sectionLst></p:ext></p:extLst>';
    const master = await writeZip(
      entries.flatMap((e) => (e.kind === 'file' ? [{ name: e.name, compress: true, data: e.name === 'ppt/presentation.xml' ? Buffer.from(e.data.toString().replace('</p:presentation>', `${sections}</p:presentation>`)) : e.data }] : [])),
    );
    const ids = (r: Awaited<ReturnType<typeof render>>) => find(r.deck.xml('ppt/presentation.xml'), 'section').map((s) => find(s, 'sldId').map((i) => i.attrs.id).join(','));
    const kept = await render('<slide layout="Blank"/>', { master, options: { insertNewSlidesAfter: 1 } });
    assert.deepEqual(ids(kept), ['256,259', '257,258']);
    const dropped = await render('<slide layout="Blank"/>', { master, options: { keepExistingSlides: false } });
    assert.deepEqual(ids(dropped), ['259', '']);
  });

  it('preferredView: sets lastView in viewProps.xml', async () => {
    const view = async (preferredView?: string) => {
      const r = await render('<slide layout="Blank"/>', { options: preferredView === undefined ? {} : { preferredView } });
      return r.deck.xml('ppt/viewProps.xml').attrs.lastView;
    };
    assert.equal(await view(), undefined);
    assert.equal(await view('slideSorter'), 'sldSorterView');
    assert.equal(await view('notes'), 'notesView');
    assert.equal(await view('outline'), 'outlineView');
    assert.equal(await view('normal'), 'sldView');
    assert.equal(await view('sldThumbnailView'), 'sldThumbnailView');
    await refused(view('sideways'), 'input', /preferredView "sideways" is not one of normal, slideSorter, outline, notes/);
  });
});
