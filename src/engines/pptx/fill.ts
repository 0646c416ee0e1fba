// Putting a field's text or image into the shape the mapping chose.
import type { Deck } from './deck.js';
import { PptxError } from './errors.js';
import { containBox, coverCrop } from './images.js';
import type { MediaStore } from './media.js';
import type { ImageContent, Paragraph } from './model.js';
import { buildParagraphs, textBaseOf, type LinkRel } from './rich-text.js';
import { nonVisual, type Box, type ShapeRef } from './shapes.js';
import { attr, child, cloneElement, el, insertBefore, localName, path, removeChildren, type XmlElement } from './xml.js';

/** What filling one slide needs. */
export interface SlideContext {
  deck: Deck;
  part: string;
  media: MediaStore;
  link: LinkRel;
}

/** Placeholder types a picture or table may stay linked to (others get a plain shape in their place). */
export const CONTENT_PLACEHOLDERS = new Set(['obj', 'pic', 'clipArt', 'tbl']);

const KIND_NAMES: Record<string, string> = { pic: 'a picture', graphicFrame: 'a table, chart or diagram', cxnSp: 'a connector', contentPart: 'ink' };

/** Replaces the paragraphs of a shape's text body, keeping its body and list properties. */
export function fillText(target: ShapeRef, paragraphs: readonly Paragraph[], link: LinkRel, field: string): void {
  if (target.kind !== 'sp') throw new PptxError('shape', `field "${field}": shape "${target.name}" is ${KIND_NAMES[target.kind] ?? target.kind} and takes no text`);
  let body = child(target.el, 'txBody');
  if (!body) {
    body = el('p:txBody', {}, [el('a:bodyPr'), el('a:lstStyle')]);
    insertBefore(target.el, body, ['extLst']);
  }
  const base = textBaseOf(body);
  removeChildren(body, ['p']);
  body.children.push(...buildParagraphs(paragraphs, base, link));
}

/** Swaps a shape for another element in the same place of its tree. */
export function replaceShape(target: ShapeRef, replacement: XmlElement): void {
  const i = target.parent.children.indexOf(target.el);
  target.parent.children[i] = replacement;
  target.el = replacement;
  target.kind = localName(replacement.name);
}

/** The `<p:nvPr>` of a replacement: it keeps the placeholder link of content placeholders. */
export function replacementNvPr(target: ShapeRef): XmlElement {
  const ph = path(nonVisual(target.el), 'nvPr', 'ph');
  return el('p:nvPr', {}, ph && target.ph && CONTENT_PLACEHOLDERS.has(target.ph.type) ? [cloneElement(ph)] : []);
}

/** The id and name a replacement keeps from the shape it replaces. */
export function replacementCNvPr(target: ShapeRef, descr?: string): XmlElement {
  const old = child(nonVisual(target.el), 'cNvPr');
  return el('p:cNvPr', { id: attr(old, 'id'), name: target.name, descr: descr ?? attr(old, 'descr') });
}

/** An `a:xfrm` (or `p:xfrm` of a graphic frame) placing something at a box. */
export const xfrmElement = (b: Box, tag = 'a:xfrm'): XmlElement => el(tag, {}, [el('a:off', { x: b.x, y: b.y }), el('a:ext', { cx: b.cx, cy: b.cy })]);

/** Places an image into a shape: aspect kept (`contain`) or box filled with a centred crop (`cover`). */
export function fillImage(ctx: SlideContext, target: ShapeRef, image: ImageContent, field: string): void {
  if (target.kind === 'grpSp' || target.kind === 'cxnSp') throw new PptxError('shape', `field "${field}": shape "${target.name}" is ${target.kind === 'grpSp' ? 'a group' : 'a connector'} and takes no image`);
  const media = ctx.media.get(image.src);
  const rId = ctx.media.relFrom(ctx.part, media);
  const box = ctx.deck.boxOf(ctx.part, target);
  const { width, height } = media.info;
  const placed = image.fit === 'contain' ? containBox(box, width, height) : box;
  const crop = image.fit === 'cover' ? coverCrop(box, width, height) : undefined;
  const blipFill = el('p:blipFill', {}, [el('a:blip', { 'r:embed': rId }), ...(crop ? [el('a:srcRect', Object.fromEntries(Object.entries(crop).map(([k, v]) => [k, v === 0 ? undefined : v])))] : []), el('a:stretch', {}, [el('a:fillRect')])]);

  if (target.kind === 'pic') {
    // A designed picture keeps its outline and effects; only the bitmap and its frame change.
    const old = child(target.el, 'blipFill');
    if (old) old.children = blipFill.children;
    const spPr = child(target.el, 'spPr') ?? el('p:spPr');
    removeChildren(spPr, ['xfrm']);
    spPr.children.unshift(xfrmElement(placed));
    const cNvPr = child(nonVisual(target.el), 'cNvPr');
    if (cNvPr && image.alt !== undefined) cNvPr.attrs.descr = image.alt;
    return;
  }
  const locks = el('a:picLocks', { noGrp: target.ph ? '1' : undefined, noChangeAspect: '1' });
  const pic = el('p:pic', {}, [
    el('p:nvPicPr', {}, [replacementCNvPr(target, image.alt), el('p:cNvPicPr', {}, [locks]), replacementNvPr(target)]),
    blipFill,
    el('p:spPr', {}, [xfrmElement(placed), el('a:prstGeom', { prst: 'rect' }, [el('a:avLst')])]),
  ]);
  replaceShape(target, pic);
  if (!path(pic, 'nvPicPr', 'nvPr', 'ph')) delete target.ph;
}

