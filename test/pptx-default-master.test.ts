// The built-in master: the committed file is exactly what the generator makes, and it is
// a complete presentation with the layouts docs/pptx.md promises.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, it } from 'node:test';
import { buildDefaultMaster } from '../src/engines/pptx/default-master/index.js';
import { builtinMasterPath } from '../src/engines/pptx/index.js';
import { attr, child, elements, localName, nsAttr } from '../src/engines/pptx/xml.js';
import { readZip } from '../src/zip/index.js';
import { find, openDeck } from './fixtures/pptx/deck.js';
import { defaultMaster } from './fixtures/pptx/render.js';

const LAYOUTS: Record<string, string[]> = {
  'Title Slide': ['Title:ctrTitle', 'Subtitle:subTitle:1'],
  'Title and Content': ['Title:title', 'Content:obj:1'],
  'Section Header': ['Title:title', 'Text:body:1'],
  'Two Content': ['Title:title', 'Left Content:obj:1', 'Right Content:obj:2'],
  'Title Only': ['Title:title'],
  'Picture with Caption': ['Title:title', 'Picture:pic:1', 'Caption:body:2'],
  Blank: [],
};

describe('built-in master deck', () => {
  it('is found from the package root', () => {
    const path = builtinMasterPath();
    assert.ok(isAbsolute(path) && path.endsWith('templates/pptx/default.pptx') && existsSync(path));
  });

  it('is what scripts/build-default-pptx.ts generates (run it after changing the generator)', async () => {
    const limits = { maxEntries: 100, maxBytes: 10_000_000 };
    const committed = await readZip(defaultMaster(), limits);
    const generated = await readZip(await buildDefaultMaster(), limits);
    const asMap = (entries: typeof committed) => new Map(entries.map((e) => [e.name, e.kind === 'file' ? e.data.toString('base64') : '']));
    assert.deepEqual(asMap(committed), asMap(generated));
  });

  it('has the layouts and named placeholders the docs list, and a consistent package', async () => {
    const deck = await openDeck(defaultMaster());
    const master = 'ppt/slideMasters/slideMaster1.xml';
    const layoutRels = deck.rels(master);
    const layouts = elements(child(deck.xml(master), 'sldLayoutIdLst')!).map((l) => layoutRels.find((r) => r.id === nsAttr(l, 'id'))!.target);
    const seen: Record<string, string[]> = {};
    for (const part of layouts) {
      const root = deck.xml(part);
      const phs = find(root, 'sp')
        .map((sp) => ({ name: attr(find(sp, 'cNvPr')[0], 'name')!, ph: find(sp, 'ph')[0]! }))
        .filter((s) => !['dt', 'ftr', 'sldNum'].includes(attr(s.ph, 'type') ?? ''))
        .map((s) => [s.name, attr(s.ph, 'type') ?? 'obj', attr(s.ph, 'idx')].filter((x) => x !== undefined).join(':'));
      seen[attr(child(root, 'cSld'), 'name')!] = phs;
      assert.equal(deck.rels(part).find((r) => r.type === 'slideMaster')!.target, master);
    }
    assert.deepEqual(seen, LAYOUTS);

    const pres = deck.xml('ppt/presentation.xml');
    assert.deepEqual([attr(child(pres, 'sldSz'), 'cx'), attr(child(pres, 'sldSz'), 'cy')], ['12192000', '6858000']);
    assert.equal(deck.slides.length, 0);
    // Every relationship points at a part that exists and has a content type.
    for (const part of ['', ...deck.parts.keys()].filter((p) => !p.endsWith('.rels') && p !== '[Content_Types].xml')) {
      for (const r of deck.rels(part).filter((x) => !x.external)) {
        assert.ok(deck.parts.has(r.target), `${part || '(package)'} → ${r.target} missing`);
        assert.ok(deck.contentType(r.target), `${r.target} has no content type`);
      }
    }
    assert.deepEqual(
      ['ppt/theme/theme1.xml', 'ppt/presProps.xml', 'ppt/viewProps.xml', 'ppt/tableStyles.xml', 'docProps/core.xml', 'docProps/app.xml'].filter((p) => !deck.parts.has(p)),
      [],
    );
    const theme = deck.xml('ppt/theme/theme1.xml');
    assert.deepEqual(elements(child(theme, 'themeElements')!).map((e) => localName(e.name)), ['clrScheme', 'fontScheme', 'fmtScheme']);
  });
});
