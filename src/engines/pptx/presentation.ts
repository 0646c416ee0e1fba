// The presentation-level edits after the slides are made: the slide list (order, kept or
// dropped master slides), sections and custom shows that name slides, the view the deck
// opens in, and the counts in docProps/app.xml.
import type { Deck } from './deck.js';
import { PptxError } from './errors.js';
import { CT, PML_NAMESPACES, REL } from './ooxml.js';
import { attr, child, childrenNamed, descendants, el, insertBefore, localName, nsAttr, removeChildren, type XmlElement } from './xml.js';

/** preferredView values and the ST_ViewType each one writes to viewProps.xml `lastView`. */
export const PREFERRED_VIEWS: Readonly<Record<string, string>> = {
  normal: 'sldView',
  slideSorter: 'sldSorterView',
  outline: 'outlineView',
  notes: 'notesView',
  slideMaster: 'sldMasterView',
  notesMaster: 'notesMasterView',
  handout: 'handoutView',
  slideThumbnails: 'sldThumbnailView',
};

/** The ST_ViewType for a preferredView (a friendly name above or the raw value); PptxError('input') otherwise. */
export function viewType(preferred: string): string {
  const known = PREFERRED_VIEWS[preferred] ?? Object.values(PREFERRED_VIEWS).find((v) => v === preferred);
  if (known) return known;
  throw new PptxError('input', `preferredView "${preferred}" is not one of ${Object.keys(PREFERRED_VIEWS).join(', ')}`);
}

const AFTER_SLDIDLST = ['sldSz', 'notesSz', 'smartTags', 'embeddedFontLst', 'custShowLst', 'photoAlbum', 'custDataLst', 'kinsoku', 'defaultTextStyle', 'modifyVerifier', 'extLst'];

/** One slide of the final deck: a master slide kept (with its sldId) or a new part. */
export type FinalSlide = { kind: 'kept'; id: number; part: string } | { kind: 'new'; part: string };

/**
 * Writes the final slide list. New slides go after master slide `anchor` (1-based;
 * 0 = first); dropped master slides lose their relationship and, through the package's
 * prune, their parts.
 */
export function writeSlideList(deck: Deck, newParts: readonly string[], keep: boolean, anchor: number): FinalSlide[] {
  const { pkg, presentationPart } = deck;
  const pres = pkg.xml(presentationPart);
  const kept: FinalSlide[] = keep ? deck.slides.map((s) => ({ kind: 'kept', id: s.id, part: s.part })) : [];
  const added: FinalSlide[] = newParts.map((part) => ({ kind: 'new', part }));
  const final = [...kept.slice(0, anchor), ...added, ...kept.slice(anchor)];

  const keptParts = new Set(kept.map((s) => s.part));
  pkg.setRels(presentationPart, pkg.rels(presentationPart).filter((r) => r.type !== REL.slide || keptParts.has(pkg.resolve(presentationPart, r) ?? '')));
  const relOfPart = new Map(pkg.rels(presentationPart).filter((r) => r.type === REL.slide).map((r) => [pkg.resolve(presentationPart, r), r.id]));
  let nextId = Math.max(255, ...deck.slides.map((s) => s.id)) + 1;
  const ids = new Map<string, number>();
  const entries = final.map((s) => {
    const id = s.kind === 'kept' ? s.id : nextId++;
    ids.set(s.part, id);
    const rId = s.kind === 'kept' ? relOfPart.get(s.part)! : pkg.addRel(presentationPart, REL.slide, s.part);
    return el('p:sldId', { id, 'r:id': rId });
  });
  removeChildren(pres, ['sldIdLst']);
  if (entries.length > 0) insertBefore(pres, el('p:sldIdLst', {}, entries), AFTER_SLDIDLST);

  fixSections(pres, deck, final, ids, anchor);
  fixCustomShows(pres, new Set(pkg.rels(presentationPart).map((r) => r.id)));
  dropDeadSlideLinks(deck, final);
  return final;
}

/** PowerPoint sections (p14:sectionLst) list slide ids: drop the gone, file the new after the anchor. */
function fixSections(pres: XmlElement, deck: Deck, final: FinalSlide[], ids: Map<string, number>, anchor: number): void {
  const sections = [...descendants(pres)].filter((e) => localName(e.name) === 'section');
  if (sections.length === 0) return;
  const alive = new Set(ids.values());
  const lists = sections.map((s) => child(s, 'sldIdLst') ?? el('p14:sldIdLst'));
  for (const l of lists) l.children = childrenNamed(l, 'sldId').filter((e) => alive.has(Number(attr(e, 'id'))));
  const newIds = final.filter((s) => s.kind === 'new').map((s) => String(ids.get(s.part)));
  if (newIds.length === 0) return;
  const anchorId = anchor > 0 ? String(deck.slides[anchor - 1]?.id) : undefined;
  const prefix = lists[0]!.children.find((c): c is XmlElement => typeof c !== 'string')?.name ?? 'p14:sldId';
  const made = newIds.map((id) => el(prefix, { id }));
  for (const l of lists) {
    const at = l.children.findIndex((c) => typeof c !== 'string' && attr(c, 'id') === anchorId);
    if (at >= 0) {
      l.children.splice(at + 1, 0, ...made);
      return;
    }
  }
  lists[0]!.children.unshift(...made);
}

function fixCustomShows(pres: XmlElement, rels: Set<string>): void {
  for (const list of [...descendants(pres)].filter((e) => localName(e.name) === 'sldLst')) {
    list.children = list.children.filter((c) => typeof c === 'string' || rels.has(nsAttr(c, 'id') ?? ''));
  }
}

/** A link from a slide to a master slide that was left out would make PowerPoint repair the file. */
function dropDeadSlideLinks(deck: Deck, final: FinalSlide[]): void {
  const { pkg } = deck;
  const present = new Set(final.map((s) => s.part));
  for (const { part } of final) {
    const dead = pkg.rels(part).filter((r) => r.type === REL.slide && !present.has(pkg.resolve(part, r) ?? ''));
    if (dead.length === 0) continue;
    const deadIds = new Set(dead.map((r) => r.id));
    pkg.setRels(part, pkg.rels(part).filter((r) => !deadIds.has(r.id)));
    for (const e of descendants(pkg.xml(part))) {
      e.children = e.children.filter((c) => typeof c === 'string' || !['hlinkClick', 'hlinkMouseOver'].includes(localName(c.name)) || !deadIds.has(nsAttr(c, 'id') ?? ''));
    }
  }
}

/** Sets the view the deck opens in (viewProps.xml lastView), adding viewProps if missing. */
export function setPreferredView(deck: Deck, preferred: string): void {
  const lastView = viewType(preferred);
  const { pkg, presentationPart } = deck;
  let part = pkg.targets(presentationPart, REL.viewProps)[0];
  if (part === undefined) {
    part = pkg.freeName('ppt/viewProps', '.xml');
    pkg.put(part, el('p:viewPr', { ...PML_NAMESPACES }), CT.viewProps);
    pkg.addRel(presentationPart, REL.viewProps, part);
  }
  pkg.xml(part).attrs.lastView = lastView;
}

/** Keeps the slide and notes counts of docProps/app.xml true (titles are left alone). */
export function updateAppProps(deck: Deck, slides: number, notes: number): void {
  const app = deck.pkg.targets('', REL.extendedProps)[0];
  if (app === undefined) return;
  const root = deck.pkg.xml(app);
  for (const [tag, value] of [['Slides', slides], ['Notes', notes]] as const) {
    const e = child(root, tag);
    if (e) e.children = [String(value)];
  }
}
