import { ZipFile } from 'yazl';
import { tinyPng } from '../test/helpers/png.js';

// The page the `convert` section converts (built-in `default` template). The service-against-
// engine figures use the pinned data sheet of bench/templates instead (bench/documents.ts).

/** The benchmark page: title, price, a 5-item list, a 10-row table and one ~50 KB PNG. */
export function benchData(): { xml: string; png: Buffer } {
  const list = ['ground coffee', 'milk jug', 'descaler', 'filter', 'cup set'].map((x) => `<feature>${x}</feature>`).join('');
  const rows = Array.from({ length: 10 }, (_, i) => `<row><sku>SKU-${100 + i}</sku><name>Part ${i + 1}</name><qty>${i + 1}</qty><price>${(9.5 * (i + 1)).toFixed(2)}</price></row>`).join('');
  const xml = `<data><item id="EM-2000"><title>Espresso machine EM-2000</title><price>249.90</price><features>${list}</features><parts>${rows}</parts><image>images/photo.png</image></item></data>`;
  let png = tinyPng(130, 130, true);
  for (let side = 130; png.length < 50_000; side += 2) png = tinyPng(side, side, true);
  return { xml, png };
}

/** The benchmark page as a ZIP body (data.xml + images/photo.png). */
export async function benchZip(): Promise<Buffer> {
  const { xml, png } = benchData();
  const z = new ZipFile();
  z.addBuffer(Buffer.from(xml), 'data.xml');
  z.addBuffer(png, 'images/photo.png', { compress: false });
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
