// The built-in default template as a data sheet a company would send: the title once, the
// identifying fields with the price in its currency and the dates written out, repeated
// elements as bullet lists and tables, the picture placed, and no label dumps.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import { readBuiltinTemplate, readHelperLibrary } from '../src/repository/builtin-templates.js';
import { pdfImageCount, pdfText, pdfTextLines } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';

const ROOT = '/pressroom-job';

const sample = `<?xml version="1.0" encoding="UTF-8"?>
<data>
  <item id="EM-2000">
    <title>Espresso machine EM-2000</title>
    <sku>ESP-2000-BLK</sku>
    <price currency="EUR">1249.5</price>
    <releaseDate>2026-11-26</releaseDate>
    <image>images/photo.png</image>
    <description>A dual-boiler espresso machine for the office kitchen.</description>
    <features><feature>15 bar pump</feature><feature>milk frother</feature><feature>Water tank 2.5 l</feature></features>
    <variant sku="EM-RED" color="red"><price currency="EUR">1249.00</price><stock>12</stock></variant>
    <variant sku="EM-BLK" color="black"><price currency="EUR">1269</price><stock>3</stock></variant>
  </item>
</data>`;

async function render(data: string, files: Record<string, Buffer>): Promise<Buffer> {
  const compiler = NodeCompiler.create({ workspace: ROOT });
  compiler.mapShadow(`${ROOT}/master-documents/default.typ`, (await readBuiltinTemplate('default'))!);
  compiler.mapShadow(`${ROOT}/pressroom/lib.typ`, await readHelperLibrary());
  compiler.mapShadow(`${ROOT}/data.xml`, Buffer.from(data));
  for (const [path, content] of Object.entries(files)) compiler.mapShadow(`${ROOT}/${path}`, content);
  const inputs = {
    ticket: 'T-sheet-1',
    tenant: 'acme',
    project: 'shop',
    user: 'tester',
    foreignKey: '',
    documentTemplate: 'default',
    dataFile: '/data.xml',
    createdAt: '2026-11-26T01:30:00.000Z',
    resources: Object.keys(files).join('\n'),
  };
  const result = compiler.compile({ mainFilePath: `${ROOT}/master-documents/default.typ`, inputs });
  assert.ok(!result.hasError() && result.result, 'the default template compiles');
  return compiler.pdf(result.result);
}

describe('default template as a data sheet', () => {
  it('shows the title once, price with currency, dates written out, features as a list, the picture, no label dumps', async () => {
    const pdf = await render(sample, { 'images/photo.png': tinyPng(160, 120) });
    const pages = await pdfText(pdf);
    assert.equal(pages.length, 1, 'one item, one page');
    const text = pages[0]!;
    const lines = (await pdfTextLines(pdf, 0)).map((l) => l.text.trim());

    // The title once, as the first line of the page.
    assert.equal(text.split('Espresso machine EM-2000').length - 1, 1, text);
    assert.equal(lines[0], 'Espresso machine EM-2000');

    // Identifying fields, the price with two decimals and its currency, the date written out.
    for (const expected of ['EM-2000', 'ESP-2000-BLK', '1,249.50 EUR', '26 November 2026', 'A dual-boiler espresso machine']) {
      assert.ok(text.includes(expected), `missing ${expected} in:\n${text}`);
    }
    assert.ok(!text.includes('2026-11-26'), 'the ISO date is written out');
    assert.ok(!text.includes('Currency'), 'the currency goes with the price');

    // Repeated leaves are list items, each on its own bulleted line; repeated records a table.
    const list = lines.indexOf('Features');
    assert.ok(list > 0, `no Features list:\n${lines.join('\n')}`);
    assert.deepEqual(lines.slice(list + 1, list + 4), ['• 15 bar pump', '• milk frother', '• Water tank 2.5 l']);
    for (const cell of ['Sku', 'Color', 'Price', 'Stock', 'EM-RED', '1,249.00 EUR', '1,269.00 EUR']) {
      assert.ok(lines.includes(cell), `table cell ${cell} missing:\n${lines.join('\n')}`);
    }

    // No "Features / Feature / Value" label dump, no path printed for the placed picture.
    assert.doesNotMatch(text, /\bFeature\b|\bValue\b|\bTitle\b/);
    assert.ok(!text.includes('images/photo.png'));
    assert.equal(await pdfImageCount(pdf, 0), 1);
  });
});
