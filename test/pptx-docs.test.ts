// docs/pptx.md and docs/pptx-input.xsd stay true: every example renders, the repeating
// example's stylesheet works through the transform step, and the schema declares exactly
// the elements the examples (which cover the whole format) use.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Transformer } from '../src/engines/xslt/index.js';
import { renderPptx } from '../src/engines/pptx/index.js';
import { attr, descendants, localName, parseXml } from '../src/engines/pptx/xml.js';
import { openDeck } from './fixtures/pptx/deck.js';
import { cloneMaster } from './fixtures/pptx/render.js';
import { tinyPng } from './helpers/png.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = readFileSync(join(root, 'docs/pptx.md'), 'utf8');
const blocks = (lang: string) => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const examples = blocks('xml').filter((b) => b.trimStart().startsWith('<presentation>'));
const fail = (m: string) => new Error(m);

/** Every image path of a document (src="…" or <image>…</image>), as a PNG resource. */
const imagesOf = (xml: string) => new Map([...xml.matchAll(/src="([^"{]+)"|<image>([^<]+)<\/image>/g)].map((m) => [(m[1] ?? m[2])!, tinyPng(160, 90)]));

async function renderDoc(data: string) {
  const logs: string[] = [];
  const out = await renderPptx({ master: await cloneMaster(), data: Buffer.from(data), resources: imagesOf(data), options: { keepExistingSlides: false }, log: (l, m) => logs.push(`${l}: ${m}`) });
  return { ...out, deck: await openDeck(out.pptx), logs };
}

describe('docs/pptx.md', () => {
  const transformer = new Transformer({ processes: 1 });
  after(() => transformer.close());

  it('has examples, and every one renders', async () => {
    assert.ok(examples.length >= 3);
    for (const example of examples) {
      const { slides, logs } = await renderDoc(example);
      assert.equal(slides, (example.match(/<slide /g) ?? []).length, example);
      assert.ok(!logs.some((l) => l.startsWith('warn')), logs.join('\n'));
    }
  });

  it('shows repeating slides with a stylesheet that works through the transform step', async () => {
    const [xslt] = blocks('xslt');
    const data = blocks('xml').find((b) => b.trimStart().startsWith('<products>'))!;
    const xml = await transformer.transform({ stylesheet: Buffer.from(xslt!), stylesheetName: 'product-slides.xslt', input: Buffer.from(data), inputType: 'xml' });
    const { deck } = await renderPptx({ master: await cloneMaster(), data: xml, resources: imagesOf(data), options: { keepExistingSlides: false }, log: () => {} }).then(async (r) => ({ deck: await openDeck(r.pptx) }));
    assert.deepEqual(deck.slides.map((s) => s.layout), ['Title Slide', 'Picture with Caption', 'Picture with Caption', 'Title and Content']);
    assert.deepEqual(deck.slides.map((s) => s.shapes.find((sh) => sh.phType === 'title' || sh.phType === 'ctrTitle')!.text), ['Product range', 'Espresso machine', 'Milk jug', 'Price list']);
    assert.equal(deck.slides[1]!.shape('Caption').text, '249.90 EUR\nSKU EM-100');
    assert.equal(deck.slides[3]!.shape('Content').text, 'SKU | Name | Price\nEM-100 | Espresso machine | 249.90\nMJ-20 | Milk jug | 19.90');
  });

  it('and docs/pptx-input.xsd cover the same elements', () => {
    const xsd = parseXml(readFileSync(join(root, 'docs/pptx-input.xsd'), 'utf8'), 'xsd', fail);
    const declared = new Set([...descendants(xsd)].filter((e) => localName(e.name) === 'element').map((e) => attr(e, 'name') ?? attr(e, 'ref')!));
    const used = new Set<string>();
    const fragments = blocks('xml').filter((b) => !b.trimStart().startsWith('<products>'));
    for (const example of [...fragments, blocks('xslt')[0]!.replace(/<\/?xsl:[^>]*>/g, '')]) {
      for (const e of descendants(parseXml(example, 'example', fail))) used.add(localName(e.name));
    }
    assert.deepEqual([...declared].sort(), [...used].sort());
  });
});
