// Paragraphs of the input as DrawingML (<a:p>). A shape's existing first paragraph and
// run lend their formatting, so text put into a designed shape keeps its look.
import type { Paragraph, RunStyle } from './model.js';
import { child, cloneElement, el, insertBefore, removeChildren, type XmlElement, type XmlNode } from './xml.js';

/** Formatting the new paragraphs start from (taken from the shape being filled). */
export interface TextBase {
  pPr?: XmlElement;
  rPr?: XmlElement;
}

/** Gives the relationship id of an external hyperlink from the part being written. */
export type LinkRel = (href: string) => string;

// Schema order of a:rPr and a:pPr children: each insert goes before the elements listed.
const AFTER_FILL = ['effectLst', 'effectDag', 'highlight', 'uLnTx', 'uLn', 'uFillTx', 'uFill', 'latin', 'ea', 'cs', 'sym', 'hlinkClick', 'hlinkMouseOver', 'rtl', 'extLst'];
const AFTER_LATIN = ['ea', 'cs', 'sym', 'hlinkClick', 'hlinkMouseOver', 'rtl', 'extLst'];
const AFTER_HLINK = ['hlinkMouseOver', 'rtl', 'extLst'];
const FILLS = ['noFill', 'solidFill', 'gradFill', 'blipFill', 'pattFill', 'grpFill'];
const AFTER_BULLET = ['tabLst', 'defRPr', 'extLst'];
const BULLETS = ['buNone', 'buAutoNum', 'buChar', 'buBlip'];
const ALIGN = { left: 'l', center: 'ctr', right: 'r', justify: 'just' } as const;
// Hanging indent of bullets pressroom sets itself: 0.375 in, plus 0.5 in per level.
const BULLET_INDENT = 342900;
const LEVEL_STEP = 457200;

/** a:rPr (or the given tag) for a style, on top of the base formatting. */
export function runProperties(style: RunStyle, base: XmlElement | undefined, link: LinkRel, tag = 'a:rPr'): XmlElement {
  const rPr = base ? { ...cloneElement(base), name: tag } : el(tag, { lang: 'en-US' });
  removeChildren(rPr, ['hlinkClick', 'hlinkMouseOver']);
  delete rPr.attrs.dirty;
  delete rPr.attrs.err;
  if (style.bold !== undefined) rPr.attrs.b = style.bold ? '1' : '0';
  if (style.italic !== undefined) rPr.attrs.i = style.italic ? '1' : '0';
  if (style.underline !== undefined) rPr.attrs.u = style.underline ? 'sng' : 'none';
  if (style.strike) rPr.attrs.strike = 'sngStrike';
  if (style.size !== undefined) rPr.attrs.sz = String(Math.round(style.size * 100));
  if (style.color !== undefined) {
    removeChildren(rPr, FILLS);
    insertBefore(rPr, el('a:solidFill', {}, [el('a:srgbClr', { val: style.color })]), AFTER_FILL);
  }
  if (style.font !== undefined) {
    removeChildren(rPr, ['latin', 'ea', 'cs']);
    insertBefore(rPr, el('a:latin', { typeface: style.font }), AFTER_LATIN);
    insertBefore(rPr, el('a:ea', { typeface: style.font }), AFTER_LATIN.slice(1));
    insertBefore(rPr, el('a:cs', { typeface: style.font }), AFTER_LATIN.slice(2));
  }
  if (style.href !== undefined) insertBefore(rPr, el('a:hlinkClick', { 'r:id': link(style.href) }), AFTER_HLINK);
  return rPr;
}

function paragraphProperties(p: Paragraph, base: XmlElement | undefined): XmlElement | undefined {
  if (!base && p.level === undefined && p.bullet === undefined && p.align === undefined) return undefined;
  const pPr = base ? cloneElement(base) : el('a:pPr');
  const level = p.level ?? (Number(pPr.attrs.lvl) || 0);
  if (p.level !== undefined) {
    if (p.level === 0) delete pPr.attrs.lvl;
    else pPr.attrs.lvl = String(p.level);
  }
  if (p.align !== undefined) pPr.attrs.algn = ALIGN[p.align];
  if (p.bullet !== undefined) {
    removeChildren(pPr, [...BULLETS, ...(p.bullet === 'disc' ? ['buFont'] : [])]);
    if (p.bullet === 'none') {
      pPr.attrs.marL = String(level * LEVEL_STEP);
      pPr.attrs.indent = '0';
      insertBefore(pPr, el('a:buNone'), AFTER_BULLET);
    } else {
      pPr.attrs.marL = String(BULLET_INDENT + level * LEVEL_STEP);
      pPr.attrs.indent = String(-BULLET_INDENT);
      if (p.bullet === 'disc') {
        insertBefore(pPr, el('a:buFont', { typeface: 'Arial' }), AFTER_BULLET);
        insertBefore(pPr, el('a:buChar', { char: '•' }), AFTER_BULLET);
      } else insertBefore(pPr, el('a:buAutoNum', { type: 'arabicPeriod' }), AFTER_BULLET);
    }
  }
  return pPr;
}

/** The <a:p> elements for some paragraphs (at least one, as a text body needs). */
export function buildParagraphs(paragraphs: readonly Paragraph[], base: TextBase, link: LinkRel): XmlElement[] {
  const out = paragraphs.map((p) => {
    const kids: XmlNode[] = [];
    const pPr = paragraphProperties(p, base.pPr);
    if (pPr) kids.push(pPr);
    for (const x of p.inlines) {
      const rPr = runProperties(x.style, base.rPr, link);
      kids.push(x.kind === 'br' ? el('a:br', {}, [rPr]) : el('a:r', {}, [rPr, el('a:t', {}, [x.text])]));
    }
    // An empty paragraph keeps the size of the base text, so the line height stays right.
    if (p.inlines.length === 0 && base.rPr) kids.push(runProperties({}, base.rPr, link, 'a:endParaRPr'));
    return el('a:p', {}, kids);
  });
  return out.length > 0 ? out : [el('a:p')];
}

/** The first paragraph's and first run's formatting of a text body, to start from. */
export function textBaseOf(txBody: XmlElement | undefined): TextBase {
  const p = child(txBody, 'p');
  const pPr = child(p, 'pPr');
  const r = p?.children.find((c): c is XmlElement => typeof c !== 'string' && /(^|:)(r|fld)$/.test(c.name));
  const rPr = child(r, 'rPr') ?? child(p, 'endParaRPr');
  return { ...(pPr ? { pPr } : {}), ...(rPr ? { rPr } : {}) };
}
