// Rich text of the input format: paragraphs (<p>) holding text, <b>, <i>, <u>, <s>,
// <span>, <a href> and <br/>. Whitespace collapses as in HTML unless xml:space="preserve".
import { PptxError } from './errors.js';
import type { Align, Bullet, Inline, Paragraph, RunStyle } from './model.js';
import { attr, elements, localName, type XmlElement } from './xml.js';

const fail = (message: string) => new PptxError('input', message);

/** True when xml:space="preserve" applies (inherited from the ancestors passed in). */
export function preserves(e: XmlElement, inherited: boolean): boolean {
  const v = e.attrs['xml:space'];
  return v === undefined ? inherited : v === 'preserve';
}

function colour(value: string, where: string): string {
  const m = /^#?([0-9a-fA-F]{6})$/.exec(value.trim());
  if (!m) throw fail(`${where}: color "${value}" is not a hex colour like #1F4E79`);
  return m[1]!.toUpperCase();
}

function points(value: string, where: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 400) throw fail(`${where}: size "${value}" is not a point size between 1 and 400`);
  return Math.round(n * 100) / 100;
}

function flag(value: string | undefined, where: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw fail(`${where}: "${value}" is not a boolean (true or false)`);
}

const LINK = /^(https?:\/\/|mailto:)/i;

/** The style a <span>, <b>, … adds to the inherited one. */
function styleOf(e: XmlElement, base: RunStyle, where: string): RunStyle {
  const tag = localName(e.name);
  const s: RunStyle = { ...base };
  if (tag === 'b') s.bold = true;
  if (tag === 'i') s.italic = true;
  if (tag === 'u') s.underline = true;
  if (tag === 's') s.strike = true;
  if (tag === 'a') {
    const href = attr(e, 'href');
    if (!href || !LINK.test(href)) throw fail(`${where}: <a href="${href ?? ''}">: links must be http(s):// or mailto: URLs`);
    s.href = href;
  }
  const b = flag(attr(e, 'bold'), where);
  const i = flag(attr(e, 'italic'), where);
  const u = flag(attr(e, 'underline'), where);
  if (b !== undefined) s.bold = b;
  if (i !== undefined) s.italic = i;
  if (u !== undefined) s.underline = u;
  const color = attr(e, 'color');
  const size = attr(e, 'size');
  const font = attr(e, 'font');
  if (color !== undefined) s.color = colour(color, where);
  if (size !== undefined) s.size = points(size, where);
  if (font !== undefined) s.font = font;
  return s;
}

const INLINE = new Set(['b', 'i', 'u', 's', 'span', 'a']);

function collectInline(node: XmlElement, style: RunStyle, preserve: boolean, out: Inline[], where: string): void {
  for (const c of node.children) {
    if (typeof c === 'string') {
      if (!preserve) out.push({ kind: 'text', text: c.replace(/\s+/g, ' '), style });
      else
        c.replace(/\r\n?/g, '\n')
          .split('\n')
          .forEach((line, i) => {
            if (i > 0) out.push({ kind: 'br', style });
            if (line !== '') out.push({ kind: 'text', text: line, style });
          });
      continue;
    }
    const tag = localName(c.name);
    if (tag === 'br') out.push({ kind: 'br', style });
    else if (INLINE.has(tag)) collectInline(c, styleOf(c, style, where), preserves(c, preserve), out, where);
    else throw fail(`${where}: <${c.name}> is not allowed in text (use p, b, i, u, s, span, a, br)`);
  }
}

/** Trims collapsed whitespace at paragraph and line ends, then drops empty runs. */
function tidy(inlines: Inline[]): Inline[] {
  const out: Inline[] = [];
  let atLineStart = true;
  for (const x of inlines) {
    if (x.kind === 'br') {
      trimEnd(out);
      out.push(x);
      atLineStart = true;
      continue;
    }
    let text = x.text;
    if (atLineStart) text = text.replace(/^ +/, '');
    const prev = out[out.length - 1];
    if (prev?.kind === 'text' && prev.text.endsWith(' ')) text = text.replace(/^ +/, '');
    if (text === '') continue;
    out.push({ ...x, text });
    atLineStart = false;
  }
  trimEnd(out);
  return out;
}

function trimEnd(out: Inline[]): void {
  const last = out[out.length - 1];
  if (last?.kind !== 'text') return;
  last.text = last.text.replace(/ +$/, '');
  if (last.text === '') out.pop();
}

function paragraphOf(p: XmlElement, preserve: boolean, where: string): Paragraph {
  const para: Paragraph = { inlines: [] };
  const level = attr(p, 'level');
  if (level !== undefined) {
    if (!/^[1-9]$/.test(level)) throw fail(`${where}: level "${level}" is not 1 to 9`);
    para.level = Number(level) - 1;
  }
  const bullet = attr(p, 'bullet');
  if (bullet !== undefined) {
    if (!['none', 'disc', 'number'].includes(bullet)) throw fail(`${where}: bullet "${bullet}" is not none, disc or number`);
    para.bullet = bullet as Bullet;
  }
  const align = attr(p, 'align');
  if (align !== undefined) {
    if (!['left', 'center', 'right', 'justify'].includes(align)) throw fail(`${where}: align "${align}" is not left, center, right or justify`);
    para.align = align as Align;
  }
  const inlines: Inline[] = [];
  const keep = preserves(p, preserve);
  collectInline(p, styleOf(p, {}, where), keep, inlines, where);
  para.inlines = keep ? inlines : tidy(inlines);
  return para;
}

/**
 * The paragraphs of a text container (<field>, <notes>, <cell>): its <p> children, or
 * its whole content as one paragraph when it has none.
 */
export function parseParagraphs(container: XmlElement, preserve: boolean, where: string): Paragraph[] {
  const keep = preserves(container, preserve);
  const ps = elements(container).filter((c) => localName(c.name) === 'p');
  if (ps.length === 0) return [paragraphOf(container, keep, where)];
  for (const c of container.children) {
    if (typeof c === 'string' ? c.trim() !== '' : localName(c.name) !== 'p') {
      throw fail(`${where}: once it has <p> paragraphs, everything in it must be a <p> (found ${typeof c === 'string' ? `text "${c.trim().slice(0, 30)}"` : `<${c.name}>`})`);
    }
  }
  return ps.map((p, i) => paragraphOf(p, keep, `${where}, paragraph ${i + 1}`));
}
