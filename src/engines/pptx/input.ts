// Reads the input document (docs/pptx.md, docs/pptx-input.xsd) into SlideSpecs.
// Every problem is a PptxError('input') that says where: slide number, field name.
import { PptxError } from './errors.js';
import { parseParagraphs, preserves } from './input-text.js';
import type { FieldContent, FieldSpec, SlideSpec, TableCell, TableContent } from './model.js';
import { attr, decodeXml, elements, localName, parseXml, type XmlElement } from './xml.js';

const fail = (message: string) => new PptxError('input', message);

function only(e: XmlElement, allowed: readonly string[], where: string): XmlElement[] {
  for (const c of e.children) {
    if (typeof c === 'string' && c.trim() !== '') throw fail(`${where}: text "${c.trim().slice(0, 30)}" is not allowed here`);
    if (typeof c !== 'string' && !allowed.includes(localName(c.name))) throw fail(`${where}: <${c.name}> is not allowed in <${e.name}> (allowed: ${allowed.join(', ')})`);
  }
  return elements(e);
}

function bool(e: XmlElement, name: string, where: string): boolean {
  const v = attr(e, name);
  if (v === undefined || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw fail(`${where}: ${name}="${v}" is not true or false`);
}

function cells(row: XmlElement, preserve: boolean, where: string): TableCell[] {
  return only(row, ['cell'], where).map((c, i) => ({ paragraphs: parseParagraphs(c, preserves(c, preserve), `${where}, cell ${i + 1}`) }));
}

function table(e: XmlElement, preserve: boolean, where: string): TableContent {
  const fontSize = Number(attr(e, 'fontSize') ?? 14);
  if (!Number.isFinite(fontSize) || fontSize < 4 || fontSize > 100) throw fail(`${where}: fontSize "${attr(e, 'fontSize')}" is not between 4 and 100`);
  const overflow = attr(e, 'overflow') ?? 'continue';
  if (overflow !== 'continue' && overflow !== 'error') throw fail(`${where}: overflow "${overflow}" is not continue or error`);
  const t: TableContent = { kind: 'table', rows: [], fontSize, overflow };
  const style = attr(e, 'style');
  if (style !== undefined) {
    if (!/^\{[0-9A-Fa-f-]{36}\}$/.test(style)) throw fail(`${where}: style "${style}" is not a table style id like {5C22544A-7EE6-4342-B048-85BDC9FD1C3A}`);
    t.style = style.toUpperCase();
  }
  const keep = preserves(e, preserve);
  for (const c of only(e, ['columns', 'header', 'row'], where)) {
    const tag = localName(c.name);
    if (tag === 'columns') {
      t.widths = only(c, ['column'], `${where}, columns`).map((col, i) => {
        const w = Number(attr(col, 'width') ?? 1);
        if (!(w > 0) || !Number.isFinite(w)) throw fail(`${where}, column ${i + 1}: width "${attr(col, 'width')}" is not a positive number`);
        return w;
      });
    } else if (tag === 'header') {
      if (t.header || t.rows.length > 0) throw fail(`${where}: <header> must come once, before the rows`);
      t.header = cells(c, keep, `${where}, header`);
    } else t.rows.push(cells(c, keep, `${where}, row ${t.rows.length + 1}`));
  }
  const columns = Math.max(t.widths?.length ?? 0, t.header?.length ?? 0, ...t.rows.map((r) => r.length));
  if (columns === 0) throw fail(`${where}: the table has no cells`);
  if (t.widths && t.widths.length !== columns) throw fail(`${where}: <columns> declares ${t.widths.length} column(s) but a row has ${columns}`);
  const pad = (r: TableCell[]) => [...r, ...Array.from({ length: columns - r.length }, () => ({ paragraphs: [{ inlines: [] }] }))];
  if (t.header) t.header = pad(t.header);
  t.rows = t.rows.map(pad);
  return t;
}

function content(field: XmlElement, where: string): FieldContent {
  const keep = preserves(field, false);
  const kids = elements(field);
  const solo = kids.length === 1 && field.children.every((c) => typeof c !== 'string' || c.trim() === '') ? kids[0]! : undefined;
  const tag = solo && localName(solo.name);
  if (solo && tag === 'image') {
    const src = attr(solo, 'src');
    if (!src) throw fail(`${where}: <image> needs a src`);
    const fit = attr(solo, 'fit') ?? 'contain';
    if (fit !== 'contain' && fit !== 'cover') throw fail(`${where}: fit "${fit}" is not contain or cover`);
    const alt = attr(solo, 'alt');
    return { kind: 'image', src, fit, ...(alt === undefined ? {} : { alt }) };
  }
  if (solo && tag === 'table') return table(solo, keep, where);
  const misplaced = kids.find((k) => ['image', 'table'].includes(localName(k.name)));
  if (misplaced) throw fail(`${where}: <${misplaced.name}> must be the only content of its <field>`);
  return { kind: 'text', paragraphs: parseParagraphs(field, keep, where) };
}

function slide(e: XmlElement, number: number): SlideSpec {
  const where = `slide ${number}`;
  const layout = attr(e, 'layout');
  const clone = attr(e, 'clone');
  if ((layout === undefined) === (clone === undefined)) throw fail(`${where}: give exactly one of layout="…" or clone="…"`);
  const spec: SlideSpec = { fields: [], number };
  if (attr(e, 'hidden') !== undefined) spec.hidden = bool(e, 'hidden', where);
  if (layout !== undefined) spec.layout = layout;
  if (clone !== undefined) spec.clone = clone;
  const name = attr(e, 'name');
  if (name !== undefined) spec.name = name;
  for (const c of only(e, ['field', 'notes'], where)) {
    if (localName(c.name) === 'notes') {
      if (spec.notes) throw fail(`${where}: more than one <notes>`);
      spec.notes = parseParagraphs(c, false, `${where}, notes`);
      continue;
    }
    const key = attr(c, 'name');
    if (!key) throw fail(`${where}: <field> needs a name`);
    const fieldWhere = `${where}, field "${key}"`;
    spec.fields.push({ key, optional: bool(c, 'optional', fieldWhere), content: content(c, fieldWhere) } satisfies FieldSpec);
  }
  return spec;
}

/** Parses the input document; a DOCTYPE or anything outside the format is a PptxError('input'). */
export function parseInput(data: Buffer): SlideSpec[] {
  const root = parseXml(decodeXml(data), 'the input XML', fail);
  if (localName(root.name) !== 'presentation') {
    throw fail(`the input's root element is <${root.name}>; renderpptx expects <presentation> with <slide> children (use a transform to turn other XML into it)`);
  }
  return only(root, ['slide'], 'presentation').map((s, i) => slide(s, i + 1));
}
