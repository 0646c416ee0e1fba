// A deck using every feature, converted to PDF by LibreOffice: it must open (no repair,
// no lost slides) and every slide must show its text. Skipped where soffice is absent.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { pdfImageCount, pdfText } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';
import { cloneMaster, render, tinyJpeg } from './fixtures/pptx/render.js';

const soffice = ['soffice', 'libreoffice'].find((cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0);
const skip = soffice ? false : 'soffice/libreoffice not installed (CI installs libreoffice-impress-nogui)';

const rows = Array.from({ length: 20 }, (_, i) => `<row><cell>SKU-${i + 1}</cell><cell>Part number ${i + 1}</cell><cell>${(i + 1) * 3}</cell></row>`).join('');
const EVERYTHING = `
  <slide layout="Title Slide"><field name="title">Quarterly Report</field><field name="subTitle">Third <b>quarter</b> 2025</field><notes>Welcome everyone</notes></slide>
  <slide layout="Title and Content"><field name="title">Agenda Overview</field><field name="body">
    <p>Results <i>in brief</i></p><p level="2">Revenue <span color="#C00000">grew</span></p><p bullet="number">Outlook <a href="https://example.com">details</a></p>
  </field></slide>
  <slide layout="Two Content"><field name="title">Side By Side</field><field name="body">Left column text</field><field name="body"><image src="images/chart.png"/></field></slide>
  <slide layout="Picture with Caption"><field name="title">Product Photo</field><field name="pic"><image src="images/photo.jpg" fit="cover"/></field><field name="Caption">Caption words here</field></slide>
  <slide layout="Title and Content"><field name="title">Parts List</field><field name="body"><table><header><cell>SKU</cell><cell>Name</cell><cell>Qty</cell></header>${rows}</table></field></slide>
  <slide layout="Section Header"><field name="title">Appendix Section</field><field name="Text">More material</field></slide>
  <slide clone="Product"><field name="title">Cloned Product</field><field name="Price">249.90</field><field name="Photo"><image src="images/chart.png"/></field></slide>
  <slide layout="Title Only"><field name="title">Closing Words</field></slide>`;

describe('LibreOffice opens rendered decks', () => {
  it('converts a deck with every feature to PDF, every slide with its text', { skip, timeout: 180_000 }, async () => {
    const resources = { 'images/chart.png': tinyPng(320, 160), 'images/photo.jpg': tinyJpeg(300, 200) };
    const { pptx, slides } = await render(EVERYTHING, { master: await cloneMaster(), resources, options: { insertNewSlidesAfter: 1 } });
    const dir = await mkdtemp(join(tmpdir(), 'pressroom-pptx-lo-'));
    try {
      await writeFile(join(dir, 'deck.pptx'), pptx);
      // A profile of its own, so parallel runs and a desktop LibreOffice do not collide.
      const profile = pathToFileURL(join(dir, 'profile')).href;
      await promisify(execFile)(soffice!, [`-env:UserInstallation=${profile}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', dir, join(dir, 'deck.pptx')], { timeout: 150_000 });
      const pdf = await readFile(join(dir, 'deck.pdf'));
      const pages = (await pdfText(pdf)).map((t) => t.replace(/\s+/g, ' '));
      // Master slide 1, then the new slides (insertNewSlidesAfter 1; the table continues once), then master slides 2 and 3.
      const expected = [
        ['Welcome', '0.00'],
        ['Quarterly Report', 'Third quarter 2025'],
        ['Agenda Overview', 'Results in brief', 'Revenue grew', 'Outlook details'],
        ['Side By Side', 'Left column text'],
        ['Product Photo', 'Caption words here'],
        ['Parts List', 'SKU Name Qty', 'SKU-1 Part number 1 3', 'SKU-13 Part number 13'],
        ['Parts List', 'SKU Name Qty', 'SKU-14 Part number 14', 'SKU-20 Part number 20 60'],
        ['Appendix Section', 'More material'],
        ['Cloned Product', '249.90'],
        ['Closing Words'],
        ['Product sheet', '0.00'],
        ['Thank you'],
      ];
      assert.equal(slides, expected.length);
      assert.equal(pages.length, slides, 'one page per slide');
      pages.forEach((text, i) => {
        for (const phrase of expected[i]!) assert.ok(text.includes(phrase), `page ${i + 1} lacks "${phrase}": ${text}`);
      });
      assert.equal(await pdfImageCount(pdf, 3), 1, 'the image on the Two Content slide');
      assert.equal(await pdfImageCount(pdf, 4), 1, 'the picture placeholder');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
