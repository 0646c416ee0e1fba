// Speaker notes: a notes slide per slide, and the notes master PowerPoint insists on
// (added, with its own copy of the theme, when the master deck has none).
import type { Deck } from './deck.js';
import type { Paragraph } from './model.js';
import { CT, PML_NAMESPACES, REL } from './ooxml.js';
import { buildParagraphs, type LinkRel } from './rich-text.js';
import { treeHeader } from './slides.js';
import { child, el, insertBefore, type XmlElement } from './xml.js';

// Portrait notes page of 7.5 × 10 in, as in PowerPoint's default notes master.
const NOTES_CX = 6858000;
const SLIDE_IMAGE = { x: 685800, y: 1143000, cx: 5486400 };
const BODY = { x: 685800, y: 4400550, cx: 5486400, cy: 3600450 };

function placeholderShape(id: number, name: string, ph: Record<string, string>, box: { x: number; y: number; cx: number; cy: number } | undefined, body: XmlElement[] | undefined): XmlElement {
  const spPr = box ? [el('a:xfrm', {}, [el('a:off', { x: box.x, y: box.y }), el('a:ext', { cx: box.cx, cy: box.cy })]), el('a:prstGeom', { prst: 'rect' }, [el('a:avLst')])] : [];
  const locks = ph.type === 'sldImg' ? { noGrp: '1', noRot: '1', noChangeAspect: '1' } : { noGrp: '1' };
  return el('p:sp', {}, [
    el('p:nvSpPr', {}, [el('p:cNvPr', { id, name }), el('p:cNvSpPr', {}, [el('a:spLocks', locks)]), el('p:nvPr', {}, [el('p:ph', ph)])]),
    el('p:spPr', {}, spPr),
    ...(body ? [el('p:txBody', {}, [el('a:bodyPr'), el('a:lstStyle'), ...body])] : []),
  ]);
}

const CLR_MAP = { bg1: 'lt1', tx1: 'dk1', bg2: 'lt2', tx2: 'dk2', accent1: 'accent1', accent2: 'accent2', accent3: 'accent3', accent4: 'accent4', accent5: 'accent5', accent6: 'accent6', hlink: 'hlink', folHlink: 'folHlink' };

function notesMasterXml(deck: Deck): XmlElement {
  const imageHeight = Math.round((SLIDE_IMAGE.cx * deck.slideSize.cy) / deck.slideSize.cx);
  const defRPr = el('a:defRPr', { sz: 1200, kern: 1200 }, [el('a:solidFill', {}, [el('a:schemeClr', { val: 'tx1' })]), el('a:latin', { typeface: '+mn-lt' }), el('a:ea', { typeface: '+mn-ea' }), el('a:cs', { typeface: '+mn-cs' })]);
  return el('p:notesMaster', { ...PML_NAMESPACES }, [
    el('p:cSld', {}, [
      el('p:bg', {}, [el('p:bgRef', { idx: 1001 }, [el('a:schemeClr', { val: 'bg1' })])]),
      el('p:spTree', {}, [
        ...treeHeader(),
        placeholderShape(2, 'Slide Image Placeholder 1', { type: 'sldImg', idx: '2' }, { ...SLIDE_IMAGE, cy: imageHeight }, undefined),
        placeholderShape(3, 'Notes Placeholder 2', { type: 'body', sz: 'quarter', idx: '3' }, BODY, [el('a:p')]),
      ]),
    ]),
    el('p:clrMap', CLR_MAP),
    el('p:notesStyle', {}, [el('a:lvl1pPr', { marL: 0, algn: 'l', defTabSz: 914400, rtl: '0' }, [defRPr])]),
  ]);
}

/** The notes master part, added (with presentation list entry and theme) if the deck has none. */
export function ensureNotesMaster(deck: Deck): string {
  const existing = deck.notesMaster();
  if (existing) return existing;
  const { pkg } = deck;
  const part = pkg.freeName('ppt/notesMasters/notesMaster', '.xml');
  pkg.put(part, notesMasterXml(deck), CT.notesMaster);
  // A theme part belongs to one master; the notes master gets its own copy of the slide master's.
  const slideTheme = pkg.targets(deck.layouts[0]!.master, REL.theme)[0];
  const theme = pkg.freeName('ppt/theme/theme', '.xml');
  if (slideTheme) pkg.put(theme, pkg.bytes(slideTheme), CT.theme);
  if (slideTheme) pkg.addRel(part, REL.theme, theme);
  const rId = pkg.addRel(deck.presentationPart, REL.notesMaster, part);
  const pres = pkg.xml(deck.presentationPart);
  let list = child(pres, 'notesMasterIdLst');
  if (!list) {
    list = el('p:notesMasterIdLst');
    insertBefore(pres, list, ['handoutMasterIdLst', 'sldIdLst', 'sldSz', 'notesSz', 'smartTags', 'embeddedFontLst', 'custShowLst', 'photoAlbum', 'custDataLst', 'kinsoku', 'defaultTextStyle', 'modifyVerifier', 'extLst']);
  }
  list.children = [el('p:notesMasterId', { 'r:id': rId })];
  ensureRelNamespace(pres);
  if (!child(pres, 'notesSz')) insertBefore(pres, el('p:notesSz', { cx: NOTES_CX, cy: 9144000 }), ['smartTags', 'embeddedFontLst', 'custShowLst', 'photoAlbum', 'custDataLst', 'kinsoku', 'defaultTextStyle', 'modifyVerifier', 'extLst']);
  return part;
}

/** Declares the r: prefix on a root that may not have it yet. */
export function ensureRelNamespace(root: XmlElement): void {
  root.attrs['xmlns:r'] ??= PML_NAMESPACES['xmlns:r'];
}

/** Adds a notes slide to a slide. `link` gives hyperlink ids from the notes part. */
export function addNotes(deck: Deck, slide: string, paragraphs: readonly Paragraph[], link: (part: string) => LinkRel): string {
  const master = ensureNotesMaster(deck);
  const part = deck.pkg.freeName('ppt/notesSlides/notesSlide', '.xml');
  const root = el('p:notes', { ...PML_NAMESPACES }, [
    el('p:cSld', {}, [
      el('p:spTree', {}, [
        ...treeHeader(),
        placeholderShape(2, 'Slide Image Placeholder 1', { type: 'sldImg' }, undefined, undefined),
        placeholderShape(3, 'Notes Placeholder 2', { type: 'body', idx: '1' }, undefined, buildParagraphs(paragraphs, {}, link(part))),
      ]),
    ]),
    el('p:clrMapOvr', {}, [el('a:masterClrMapping')]),
  ]);
  deck.pkg.put(part, root, CT.notesSlide);
  deck.pkg.addRel(part, REL.notesMaster, master);
  deck.pkg.addRel(part, REL.slide, slide);
  deck.pkg.addRel(slide, REL.notesSlide, part);
  return part;
}
