// Tables (<a:tbl> in a graphic frame) in the box of a placeholder or shape, and the split
// of rows that do not fit into chunks for continuation slides.
import { PptxError } from './errors.js';
import { replaceShape, replacementCNvPr, replacementNvPr, xfrmElement } from './fill.js';
import type { TableCell, TableContent } from './model.js';
import { buildParagraphs, type LinkRel } from './rich-text.js';
import { EMU_PER_INCH, EMU_PER_POINT } from './ooxml.js';
import type { Box, ShapeRef } from './shapes.js';
import { el, type XmlElement } from './xml.js';

// Cell margins are the DrawingML defaults (0.1 in left/right, 0.05 in top/bottom).
const MAR_X = 91440;
const MAR_Y = 45720;
/** Narrowest column pressroom lays out: 0.3 in. */
export const MIN_COLUMN_EMU = 274320;
// Average glyph width as a share of the font size: generous, so the estimate errs towards taller rows.
const GLYPH = 0.55;

/** Column widths, row heights and which rows go on which slide. */
export interface TablePlan {
  widths: number[];
  headerHeight: number;
  heights: number[];
  /** Row indexes per slide: the first chunk on the slide itself, the rest on continuation slides. */
  chunks: number[][];
}

function cellHeight(cell: TableCell, width: number, fontSize: number): number {
  const room = Math.max(width - 2 * MAR_X, 1);
  let lines = 0;
  for (const p of cell.paragraphs) {
    let line = 0;
    let count = 1;
    for (const x of p.inlines) {
      if (x.kind === 'br') {
        count += 1 + Math.floor(line / room);
        line = 0;
      } else line += x.text.length * (x.style.size ?? fontSize) * GLYPH * EMU_PER_POINT;
    }
    lines += count + Math.floor(line / room);
  }
  return Math.max(lines, 1) * fontSize * 1.2 * EMU_PER_POINT + 2 * MAR_Y;
}

const rowHeight = (row: TableCell[], widths: number[], fontSize: number) => Math.round(Math.max(...row.map((c, i) => cellHeight(c, widths[i]!, fontSize))));

/**
 * Lays a table out in a box. Row heights are estimated from the text (the office suite
 * grows a row that needs more room, so the estimate is deliberately generous); rows that
 * do not fit go to further chunks, each repeating the header, or fail with overflow="error".
 */
export function planTable(t: TableContent, box: Box, where: string): TablePlan {
  const columns = t.header?.length ?? t.rows[0]?.length ?? 0;
  if (box.cx < columns * MIN_COLUMN_EMU) {
    throw new PptxError('table', `${where}: the table has ${columns} columns but the shape is ${(box.cx / EMU_PER_INCH).toFixed(2)} in wide, room for at most ${Math.floor(box.cx / MIN_COLUMN_EMU)} (0.3 in each)`);
  }
  const weights = t.widths ?? Array.from({ length: columns }, () => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const widths = weights.map((w) => Math.round((box.cx * w) / total));
  widths[columns - 1]! += box.cx - widths.reduce((a, b) => a + b, 0);
  if (widths.some((w) => w < MIN_COLUMN_EMU)) throw new PptxError('table', `${where}: a column would be narrower than 0.3 in; make the shape wider or the widths more even`);

  const headerHeight = t.header ? rowHeight(t.header, widths, t.fontSize) : 0;
  const heights = t.rows.map((r) => rowHeight(r, widths, t.fontSize));
  const chunks: number[][] = [];
  let current: number[] = [];
  let used = headerHeight;
  heights.forEach((h, i) => {
    if (used + h > box.cy && current.length > 0) {
      chunks.push(current);
      current = [];
      used = headerHeight;
    }
    if (used + h > box.cy) {
      throw new PptxError('table', `${where}: row ${i + 1}${t.header ? ' with the header' : ''} needs about ${((used + h) / EMU_PER_INCH).toFixed(2)} in but the shape is only ${(box.cy / EMU_PER_INCH).toFixed(2)} in tall`);
    }
    current.push(i);
    used += h;
  });
  chunks.push(current);
  if (chunks.length > 1 && t.overflow === 'error') {
    throw new PptxError('table', `${where}: ${t.rows.length} rows do not fit the shape (about ${chunks[0]!.length} do); use overflow="continue" to carry them over to further slides`);
  }
  return { widths, headerHeight, heights, chunks };
}

const line = (tag: string) => el(tag, { w: 12700, cmpd: 'sng' }, [el('a:solidFill', {}, [el('a:srgbClr', { val: 'BFBFBF' })])]);
const fill = (colour: XmlElement) => el('a:solidFill', {}, [colour]);

function cell(c: TableCell, t: TableContent, header: boolean, band: boolean, link: LinkRel): XmlElement {
  const styled = t.style === undefined;
  const rPr = el('a:rPr', { lang: 'en-US', sz: Math.round(t.fontSize * 100), b: header && styled ? '1' : undefined }, header && styled ? [fill(el('a:srgbClr', { val: 'FFFFFF' }))] : []);
  const props = styled
    ? [line('a:lnL'), line('a:lnR'), line('a:lnT'), line('a:lnB'), fill(header ? el('a:schemeClr', { val: 'accent1' }) : el('a:srgbClr', { val: band ? 'F2F2F2' : 'FFFFFF' }))]
    : [];
  return el('a:tc', {}, [el('a:txBody', {}, [el('a:bodyPr'), el('a:lstStyle'), ...buildParagraphs(c.paragraphs, { rPr }, link)]), el('a:tcPr', { anchor: 'ctr' }, props)]);
}

/** The graphic frame showing one chunk of a table, replacing the target shape. */
export function placeTable(target: ShapeRef, box: Box, t: TableContent, plan: TablePlan, chunk: number, link: LinkRel): void {
  const rows = plan.chunks[chunk] ?? [];
  const trs: XmlElement[] = [];
  if (t.header) trs.push(el('a:tr', { h: plan.headerHeight }, t.header.map((c) => cell(c, t, true, false, link))));
  rows.forEach((r, n) => trs.push(el('a:tr', { h: plan.heights[r] }, t.rows[r]!.map((c) => cell(c, t, false, n % 2 === 1, link)))));
  const height = trs.reduce((sum, tr) => sum + Number(tr.attrs.h), 0);
  const tblPr = el('a:tblPr', { firstRow: t.header ? '1' : undefined, bandRow: '1' }, t.style ? [el('a:tableStyleId', {}, [t.style])] : []);
  const tbl = el('a:tbl', {}, [tblPr, el('a:tblGrid', {}, plan.widths.map((w) => el('a:gridCol', { w }))), ...trs]);
  const frame = el('p:graphicFrame', {}, [
    el('p:nvGraphicFramePr', {}, [replacementCNvPr(target), el('p:cNvGraphicFramePr', {}, [el('a:graphicFrameLocks', { noGrp: '1' })]), replacementNvPr(target)]),
    xfrmElement({ ...box, cy: Math.min(height, box.cy) }, 'p:xfrm'),
    el('a:graphic', {}, [el('a:graphicData', { uri: 'http://schemas.openxmlformats.org/drawingml/2006/table' }, [tbl])]),
  ]);
  replaceShape(target, frame);
}
