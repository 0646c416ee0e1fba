// The built-in Typst files (default master document, helper library) and the documented
// invoice example, compiled the way a render process does it: one NodeCompiler on a virtual
// root, every file given with mapShadow, metadata through sys.inputs. The PDFs are read back
// with MuPDF.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NodeCompiler, type NodeError } from '@myriaddreamin/typst-ts-node-compiler';
import {
  BUILTIN_TEMPLATES_DIR,
  HELPER_LIBRARY_PATH,
  builtinTemplateNames,
  builtinTemplatePath,
  findTemplatesDir,
  readBuiltinTemplate,
  readHelperLibrary,
} from '../src/repository/builtin-templates.js';
import { pdfFontNames, pdfImageCount, pdfPageCount, pdfText, pdfTextLines } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';

const ROOT = '/pressroom-job';
const here = dirname(fileURLToPath(import.meta.url));
const grid = (name: string) => readFileSync(join(here, 'fixtures', 'grid', name));
const invoiceDir = join(here, '..', 'docs', 'examples', 'invoice');

/** A4 width and the default template's side margin, in points. */
const PAGE_WIDTH = 595.28;
const MARGIN = 56.69;

interface Job {
  /** Template source; the built-in `default` when absent. */
  template?: Buffer;
  /** Template name: the main file is /master-documents/<name>.typ unless `mainPath` is given. */
  name?: string;
  mainPath?: string;
  data: Buffer | string;
  dataFile?: '/data.xml' | '/data.json';
  /** Resource files by job path (no leading slash), all listed in sys.inputs.resources. */
  files?: Record<string, Buffer>;
  /** Extra or replaced sys.inputs. */
  inputs?: Record<string, string>;
  /** PDF standard of the export, as the renderpdf config may ask (`a-2b`, `ua-1`). */
  pdfStandard?: string;
}

// One compiler for the whole file, reset between jobs, as a render process reuses it.
const compiler = NodeCompiler.create({ workspace: ROOT });

function messages(err: NodeError | null): string[] {
  return err ? (err.shortDiagnostics as { message: string }[]).map((d) => d.message) : [];
}

async function render(job: Job): Promise<{ pdf: Buffer; warnings: string[] }> {
  const name = job.name ?? 'default';
  const template = job.template ?? (await readBuiltinTemplate('default'));
  assert.ok(template);
  const mainPath = job.mainPath ?? `/master-documents/${name}.typ`;
  const dataFile = job.dataFile ?? '/data.xml';
  compiler.resetShadow();
  compiler.mapShadow(ROOT + mainPath, template);
  compiler.mapShadow(`${ROOT}/pressroom/lib.typ`, await readHelperLibrary());
  compiler.mapShadow(ROOT + dataFile, Buffer.from(job.data));
  for (const [path, data] of Object.entries(job.files ?? {})) compiler.mapShadow(`${ROOT}/${path}`, data);
  const inputs: Record<string, string> = {
    ticket: 'T-test-1',
    tenant: 'acme',
    project: 'shop',
    user: 'tester',
    foreignKey: '',
    documentTemplate: name,
    dataFile,
    createdAt: '2025-03-14T09:30:00.000Z',
    resources: Object.keys(job.files ?? {}).join('\n'),
    ...job.inputs,
  };
  const result = compiler.compile({ mainFilePath: ROOT + mainPath, inputs });
  const doc = result.result;
  if (result.hasError() || !doc) {
    const errors = [...messages(result.takeError()), ...messages(result.takeDiagnostics())];
    throw new Error(`template failed: ${errors.join('; ')}`);
  }
  const warnings = messages(result.takeWarnings());
  return { pdf: compiler.pdf(doc, job.pdfStandard ? { pdfStandard: job.pdfStandard } : {}), warnings };
}

/** Renders with the default template and returns the PDF's text, one string per page. */
async function sheet(job: Job): Promise<{ pdf: Buffer; pages: string[] }> {
  const { pdf, warnings } = await render(job);
  assert.deepEqual(warnings, []);
  return { pdf, pages: await pdfText(pdf) };
}

function includesAll(text: string, expected: string[]) {
  for (const e of expected) assert.ok(text.includes(e), `missing ${JSON.stringify(e)} in:\n${text}`);
}

/** Asserts the `cells` sit on one baseline of `page` (a cell is a text line or a word run of one). */
async function assertRow(pdf: Buffer, page: number, cells: string[]) {
  const lines = await pdfTextLines(pdf, page);
  const ys = cells.map((cell) => {
    const line = lines.find((l) => l.text.trim() === cell) ?? lines.find((l) => ` ${l.text.trim()} `.includes(` ${cell} `));
    assert.ok(line, `no line ${JSON.stringify(cell)} on page ${page + 1}`);
    return line.y;
  });
  for (const y of ys) assert.ok(Math.abs(y - ys[0]!) < 1, `cells ${cells.join(', ')} are not one table row (y: ${ys.join(', ')})`);
}

describe('built-in template files', () => {
  it('resolves templates/typst from the package root, from src/ and dist/ alike', () => {
    const root = join(here, '..');
    assert.equal(BUILTIN_TEMPLATES_DIR, join(root, 'templates', 'typst'));
    assert.equal(findTemplatesDir(join(root, 'dist', 'steps', 'render-pdf')), BUILTIN_TEMPLATES_DIR);
    assert.equal(findTemplatesDir(join(root, 'src', 'steps', 'render-pdf')), BUILTIN_TEMPLATES_DIR);
    assert.throws(() => findTemplatesDir('/'), /not found/);
    assert.ok(existsSync(HELPER_LIBRARY_PATH));
  });

  it('lists and reads the built-in master documents by name only', async () => {
    assert.ok(builtinTemplateNames.includes('default'));
    assert.equal(builtinTemplatePath('default'), join(BUILTIN_TEMPLATES_DIR, 'default.typ'));
    for (const bad of ['nope', '../default', 'pressroom/lib', 'default.typ', '']) {
      assert.equal(builtinTemplatePath(bad), undefined, bad);
      assert.equal(await readBuiltinTemplate(bad), undefined, bad);
    }
    assert.deepEqual(await readBuiltinTemplate('default'), readFileSync(join(BUILTIN_TEMPLATES_DIR, 'default.typ')));
    assert.deepEqual(await readHelperLibrary(), readFileSync(HELPER_LIBRARY_PATH));
  });
});

describe('default template', () => {
  it('turns a simple grid into a data sheet with fields, footer and metadata', async () => {
    const { pdf, pages } = await sheet({ data: grid('simple.xml') });
    assert.equal(pages.length, 1);
    includesAll(pages[0]!, [
      'Data',
      'created 14 March 2025, 09:30 UTC',
      'acme / shop',
      'Espresso machine',
      'Coffee grinder',
      'Unit Price',
      '249.90',
      'Compact 15-bar machine with a milk frother.',
      'https://example.com/products/espresso-machine',
      'Ticket T-test-1',
      'Page 1 of 1',
    ]);
    await assertRow(pdf, 0, ['Unit Price', '249.90']);
  });

  it('uses only the fonts built into the compiler for Latin text', async () => {
    const { pdf } = await sheet({ data: grid('repeated.xml') });
    const fonts = await pdfFontNames(pdf);
    assert.ok(fonts.length > 0);
    for (const font of fonts) assert.match(font, /^LibertinusSerif-/);
  });

  it('shows repeated child elements as a table with a header row', async () => {
    const { pdf, pages } = await sheet({ data: grid('repeated.xml') });
    includesAll(pages[0]!, ['Variant', 'Dimensions', 'Packaging', 'carton', '9.5', 'Unit: kg']);
    await assertRow(pdf, 0, ['Sku', 'Color', 'Price', 'Stock']);
    await assertRow(pdf, 0, ['ESP-RED', 'red', '249.90', '12']);
    await assertRow(pdf, 0, ['ESP-WHT', 'white', '269.90', '0']);
  });

  it('embeds image values that are image resources of the job and prints the rest', async () => {
    const files = {
      'images/photo.png': tinyPng(160, 160, true),
      'images/thumb.png': tinyPng(40, 30),
      'images/fake.png': Buffer.from('not a png at all'),
      'docs/manual.txt': Buffer.from('manual'),
    };
    assert.ok(files['images/photo.png'].length > 45_000);
    const { pdf, pages } = await sheet({ data: grid('images.xml'), files });
    assert.equal(await pdfImageCount(pdf, 0), 2);
    includesAll(pages[0]!, ['images/missing.png', 'docs/manual.txt', 'images/fake.png', 'https://example.com/remote.png', 'Alt: thumbnail']);
    assert.ok(!pages[0]!.includes('images/photo.png'));

    // Without the resources list nothing is embedded: the paths are printed.
    const plain = await sheet({ data: grid('images.xml'), files, inputs: { resources: '' } });
    assert.equal(await pdfImageCount(plain.pdf, 0), 0);
    includesAll(plain.pages[0]!, ['images/photo.png', './images/thumb.png']);
  });

  it('exports as PDF/A-2b and PDF/UA-1 (images carry alt text)', async () => {
    const files = { 'images/photo.png': tinyPng(40, 40), 'images/thumb.png': tinyPng(20, 20) };
    for (const pdfStandard of ['a-2b', 'ua-1']) {
      const { pdf } = await render({ data: grid('images.xml'), files, pdfStandard });
      assert.equal(await pdfImageCount(pdf, 0), 2, pdfStandard);
    }
    const { pdf } = await render({ template: readFileSync(join(invoiceDir, 'invoice.typ')), name: 'invoice', data: readFileSync(join(invoiceDir, 'invoice.xml')), files: { 'images/logo.png': tinyPng(40, 20) }, pdfStandard: 'ua-1' });
    assert.equal(await pdfImageCount(pdf, 0), 1);
  });

  it('spreads 1000 items over many pages numbered "page X of Y"', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => `<item id="${i + 1}"><name>Product ${i + 1}</name><price>${i}.99</price><description>Description of product ${i + 1}</description></item>`);
    const { pdf, pages } = await sheet({ data: `<data>${items.join('')}</data>` });
    const n = await pdfPageCount(pdf);
    assert.equal(pages.length, n);
    assert.ok(n > 50, `${n} pages`);
    includesAll(pages[0]!, ['Product 1\n', '0.99', `Page 1 of ${n}`]);
    includesAll(pages[n - 1]!, ['Product 1000', '999.99', `Page ${n} of ${n}`]);
  });

  it('takes the title from sys.inputs, custom.title, the data, else the root tag', async () => {
    const title = async (job: Job) => (await sheet(job)).pages[0]!.split('\n')[0];
    assert.equal(await title({ data: grid('simple.xml'), inputs: { title: 'Price list' } }), 'Price list');
    assert.equal(await title({ data: grid('simple.xml'), inputs: { 'custom.title': 'Custom title' } }), 'Custom title');
    assert.equal(await title({ data: grid('mixed.xml') }), 'Quarterly stock report');
    assert.equal(await title({ data: grid('repeated.xml') }), 'Espresso machine');
    assert.equal(await title({ data: grid('simple.xml') }), 'Data');
  });

  it('prints values verbatim, never as Typst markup', async () => {
    const value = '#let x = 1 $x^2$ *bold* _it_ [link](x) @ref <label> \\ // no comment `raw` = Heading';
    const { pages } = await sheet({ data: `<data><item><code>${value.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</code></item></data>` });
    includesAll(pages[0]!, [value]);
  });

  it('wraps and cuts very long values inside the page', async () => {
    const blob = 'QUJD'.repeat(50_000);
    const words = 'lorem ipsum dolor sit amet '.repeat(400);
    const longTag = `tag_${'x'.repeat(150)}`;
    const data = `<data><item><blob>${blob}</blob><text>${words}</text><${longTag} note="${'n'.repeat(30_000)}">v</${longTag}></item></data>`;
    const { pdf, pages } = await sheet({ data });
    assert.ok(pages.length > 1 && pages.length < 40, `${pages.length} pages`);
    includesAll(pages.join('\n'), ['more bytes not shown', 'lorem ipsum dolor sit amet']);
    for (let page = 0; page < pages.length; page++) {
      for (const line of await pdfTextLines(pdf, page)) {
        assert.ok(line.x + line.w <= PAGE_WIDTH - MARGIN + 1, `line overflows on page ${page + 1}: ${line.text.slice(0, 60)}`);
      }
    }
  });

  const odd: [string, Job, string[]][] = [
    ['an empty root', { data: grid('empty.xml') }, ['Data', 'This document contains no data.']],
    ['a text-only root', { data: grid('text-only.xml') }, ['Just some text & more']],
    ['a whitespace-only root', { data: '<data>\n   \n</data>' }, ['This document contains no data.']],
    ['attributes only', { data: grid('attributes-only.xml') }, ['Version', 'erp', 'Second', '2.50']],
    [
      'namespaces, comments, processing instructions, CDATA',
      { data: grid('namespaces.xml') },
      ['Kaffeemühle', 'Use <b>only</b> whole beans & water', 'K-1', 'https://example.com/p/1', 'Lang', 'de'],
    ],
    ['mixed leaf, repeated and wide elements', { data: grid('mixed.xml') }, ['Warehouse', 'North', 'plain text item', 'another one', 'A9', 'Row 2']],
    [
      '300 levels of nesting',
      { data: `<data><item>${Array.from({ length: 300 }, (_, i) => `<l${i} n="${i}">`).join('')}bottom text${Array.from({ length: 300 }, (_, i) => `</l${299 - i}>`).join('')}</item></data>` },
      ['L0', 'L4', 'bottom text'],
    ],
    ['repeated leaves', { data: '<data><item><tag>red</tag><tag>green</tag><tag/></item></data>' }, ['Tag', 'red', 'green']],
    ['scripts without a built-in font', { data: '<data><item><name>Ελληνικά Кириллица 中文 العربية 🎉</name></item></data>' }, ['Ελληνικά Кириллица']],
    [
      'JSON data',
      {
        data: JSON.stringify({ title: 'From JSON', items: [{ id: 1, name: 'A', tags: ['x', 'y'] }, { id: 2, ok: true, none: null }], nested: { a: { b: { c: 1 } } } }),
        dataFile: '/data.json',
      },
      ['From JSON', 'Items', 'A', 'true', 'Nested'],
    ],
    ['a JSON array', { data: '[1, "two", {"three": 3}]', dataFile: '/data.json' }, ['Items', 'two', 'Three']],
    ['a JSON scalar', { data: '"just a string"', dataFile: '/data.json' }, ['just a string']],
    ['JSON null', { data: 'null', dataFile: '/data.json' }, ['This document contains no data.']],
    ['the main file at /main.typ', { data: grid('simple.xml'), mainPath: '/main.typ' }, ['Espresso machine']],
  ];
  for (const [what, job, expected] of odd) {
    it(`does not fail on ${what}`, async () => {
      const { pages } = await sheet(job);
      assert.ok(pages.length >= 1);
      includesAll(pages.join('\n'), [...expected, 'Page 1 of']);
    });
  }
});

describe('invoice example (docs/examples/invoice)', () => {
  const template = readFileSync(join(invoiceDir, 'invoice.typ'));
  const data = readFileSync(join(invoiceDir, 'invoice.xml'));

  it('renders customer, lines, total and the logo from the ZIP', async () => {
    const { pdf, warnings } = await render({ template, name: 'invoice', data, files: { 'images/logo.png': tinyPng(300, 120) } });
    assert.deepEqual(warnings, []);
    const [page] = await pdfText(pdf);
    includesAll(page!, ['Acme Widgets Ltd.', 'Invoice 2025-0042', 'Widget, large', '1,104.50 EUR', '209.86 EUR', '1,314.36 EUR', 'Page 1 of 1']);
    await assertRow(pdf, 0, ['W-100', 'Widget, large', '10', '12.50', '125.00']);
    assert.equal(await pdfImageCount(pdf, 0), 1);
    for (const font of await pdfFontNames(pdf)) assert.match(font, /^LibertinusSerif-/);
  });

  it('falls back to the seller name without a logo', async () => {
    const { pdf } = await render({ template, name: 'invoice', data });
    assert.equal(await pdfImageCount(pdf, 0), 0);
    includesAll((await pdfText(pdf))[0]!, ['Pressroom Demo GmbH', '1,314.36 EUR']);
  });
});

describe('helper library /pressroom/lib.typ', () => {
  const assertions = readFileSync(join(here, 'fixtures', 'typst', 'lib-assertions.typ'));
  const files = {
    'images/photo.png': tinyPng(20, 20),
    'images/fake.png': Buffer.from('not a png'),
    'docs/manual.txt': Buffer.from('manual'),
  };

  it('passes every #assert of the checks document', async () => {
    const { pdf } = await render({ template: assertions, name: 'lib-assertions', data: grid('repeated.xml'), files, inputs: { ticket: 'T-42', 'custom.lang': 'de' } });
    includesAll((await pdfText(pdf))[0]!, ['lib assertions passed']);
  });

  it('fails the compile when an assertion does not hold', async () => {
    const broken = Buffer.concat([assertions, Buffer.from('\n#eq(attr(r, "a"), "2")\n')]);
    await assert.rejects(render({ template: broken, name: 'lib-assertions', data: grid('repeated.xml'), files, inputs: { ticket: 'T-42', 'custom.lang': 'de' } }), /expected "2", got "1"/);
  });
});
