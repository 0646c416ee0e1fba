// The benchmark documents, pinned in bench/templates (not the built-in `default`, which changes
// with product work): the one-page data sheet and the product catalogue. Each comes as the ZIP
// a client posts and as the files and sys.inputs the raw Typst loop compiles.
import { readFileSync } from 'node:fs';
import { readHelperLibrary } from '../src/repository/builtin-templates.js';
import { JOB_ROOT } from '../src/engines/typst/index.js';
import { benchPng, storedZip, xmlText } from './fixtures.js';

export const sheetTemplate = readFileSync(new URL('./templates/sheet.typ', import.meta.url));
export const catalogueTemplate = readFileSync(new URL('./templates/catalogue.typ', import.meta.url));
export const partTemplate = readFileSync(new URL('./templates/part.typ', import.meta.url));

/** Item `i` of the fanout benchmark, as it appears in the request and (alone) in its part's data. */
export const fanoutItem = (i: number): string => `<item id="P${i}"><title>Part ${i}</title><price>${i}.00</price><qty>${i % 7}</qty></item>`;

/** What raw Typst compiles for one fanout part. */
export async function partRaw(): Promise<RawDocument> {
  return {
    files: [
      [`${JOB_ROOT}/master-documents/part.typ`, partTemplate],
      [`${JOB_ROOT}/pressroom/lib.typ`, await readHelperLibrary()],
    ],
    main: `${JOB_ROOT}/master-documents/part.typ`,
    inputs: jobInputs('part', []),
    dataPath: `${JOB_ROOT}/data.xml`,
  };
}

const features = ['ground coffee', 'milk jug', 'descaler', 'filter', 'cup set', 'grinder', 'tamper', 'scale'];

/** Record `i` of the data sheet: its own title and price, the same shape every time. */
export function sheetXml(i: number): string {
  const model = `EM-${2000 + i}`;
  const list = Array.from({ length: 5 }, (_, k) => `<feature>${features[(i + k) % features.length]}</feature>`).join('');
  const rows = Array.from({ length: 10 }, (_, k) => `<row><sku>SKU-${100 + k}</sku><name>Part ${k + 1} for ${model}</name><qty>${1 + ((i + k) % 9)}</qty><price>${(9.5 * (k + 1) + (i % 7)).toFixed(2)}</price></row>`).join('');
  const price = (249.9 + (i % 500) * 1.25).toFixed(2);
  return `<data><item id="${model}"><title>Espresso machine ${model}</title><price currency="EUR">${price}</price><features>${list}</features><parts>${rows}</parts><image>images/photo.png</image></item></data>`;
}

/** The data sheet's picture (about 50 KB). */
export const sheetPhoto = () => benchPng(1);

/** Record `i` as the ZIP body of a render request: data.xml and images/photo.png. */
export function sheetZip(i: number): Buffer {
  return storedZip([
    ['data.xml', Buffer.from(sheetXml(i))],
    ['images/photo.png', sheetPhoto()],
  ]);
}

/** sys.inputs as the renderpdf step passes them for a ZIP job (ticket and createdAt vary per job). */
export function jobInputs(documentTemplate: string, resources: string[]): Record<string, string> {
  return { ticket: '', tenant: 'acme', project: 'shop', user: 'admin', foreignKey: '', documentTemplate, dataFile: '/data.xml', createdAt: '', resources: resources.join('\n'), assets: '' };
}

/** What raw Typst compiles: the same template, helper library, data and pictures as a job. */
export interface RawDocument {
  files: [string, Buffer][];
  main: string;
  inputs: Record<string, string>;
  dataPath: string;
}

export async function sheetRaw(): Promise<RawDocument> {
  return {
    files: [
      [`${JOB_ROOT}/master-documents/sheet.typ`, sheetTemplate],
      [`${JOB_ROOT}/pressroom/lib.typ`, await readHelperLibrary()],
      [`${JOB_ROOT}/images/photo.png`, sheetPhoto()],
    ],
    main: `${JOB_ROOT}/master-documents/sheet.typ`,
    inputs: jobInputs('sheet', ['images/photo.png']),
    dataPath: `${JOB_ROOT}/data.xml`,
  };
}

/** The catalogue's 20 distinct pictures (about 50 KB each). */
const cataloguePictures = Array.from({ length: 20 }, (_, k) => `images/p${String(k).padStart(2, '0')}.png`);

/** A catalogue of `products` products, each with a picture and a 10-row table; `seed` varies the text. */
export function catalogueXml(products: number, seed = 0): string {
  const parts: string[] = ['<catalogue>'];
  for (let i = 0; i < products; i++) {
    const id = `P${String(i + 1).padStart(5, '0')}`;
    const rows = Array.from({ length: 10 }, (_, k) => `<row><sku>${id}-${k + 1}</sku><desc>${xmlText(`Spare part ${k + 1} of ${id}, series ${seed}`)}</desc><qty>${1 + ((i + k + seed) % 12)}</qty><price>${(4.75 * (k + 1) + (i % 13)).toFixed(2)}</price></row>`).join('');
    parts.push(`<product id="${id}"><name>Product ${i + 1} (${seed})</name><price>${(19.9 + (i % 300) * 0.5).toFixed(2)}</price><image>${cataloguePictures[i % cataloguePictures.length]}</image><rows>${rows}</rows></product>`);
  }
  parts.push('</catalogue>');
  return parts.join('');
}

const pictureFiles = (): [string, Buffer][] => cataloguePictures.map((p, k) => [p, benchPng(100 + k)]);

export function catalogueZip(xml: string): Buffer {
  return storedZip([['data.xml', Buffer.from(xml)], ...pictureFiles()]);
}

export async function catalogueRaw(): Promise<RawDocument> {
  return {
    files: [
      [`${JOB_ROOT}/master-documents/catalogue.typ`, catalogueTemplate],
      [`${JOB_ROOT}/pressroom/lib.typ`, await readHelperLibrary()],
      ...pictureFiles().map(([p, b]): [string, Buffer] => [`${JOB_ROOT}/${p}`, b]),
    ],
    main: `${JOB_ROOT}/master-documents/catalogue.typ`,
    inputs: { ...jobInputs('catalogue', cataloguePictures), project: 'cat' },
    dataPath: `${JOB_ROOT}/data.xml`,
  };
}
