// New slide parts: from a layout (its placeholders instantiated, as PowerPoint does) or
// as a copy of one of the master deck's slides (with the parts only it owns).
import { posix } from 'node:path';
import type { Deck, LayoutInfo } from './deck.js';
import { CT, PML_NAMESPACES, REL } from './ooxml.js';
import type { OpcPackage, Relationship } from './package.js';
import { listShapes, nonVisual, shapeTree } from './shapes.js';
import { attr, child, cloneElement, el, path, type XmlElement } from './xml.js';

// Footers, dates and slide numbers stay on the layout unless a slide asks for them (PowerPoint does the same).
const NOT_INSTANTIATED = new Set(['dt', 'ftr', 'sldNum', 'hdr']);

/** An empty group header every shape tree starts with. */
export function treeHeader(): XmlElement[] {
  const zero = { x: 0, y: 0 };
  const size = { cx: 0, cy: 0 };
  return [
    el('p:nvGrpSpPr', {}, [el('p:cNvPr', { id: 1, name: '' }), el('p:cNvGrpSpPr'), el('p:nvPr')]),
    el('p:grpSpPr', {}, [el('a:xfrm', {}, [el('a:off', zero), el('a:ext', size), el('a:chOff', zero), el('a:chExt', size)])]),
  ];
}

/** Adds a slide made from a layout: one empty shape per layout placeholder. */
export function slideFromLayout(deck: Deck, layout: LayoutInfo): string {
  const part = deck.pkg.freeName('ppt/slides/slide', '.xml');
  const shapes: XmlElement[] = [];
  let id = 2;
  for (const s of listShapes(shapeTree(deck.pkg.xml(layout.part)))) {
    if (!s.ph || s.kind !== 'sp' || NOT_INSTANTIATED.has(s.ph.type)) continue;
    const ph = path(nonVisual(s.el), 'nvPr', 'ph')!;
    const phAttrs = { type: attr(ph, 'type'), orient: attr(ph, 'orient'), sz: attr(ph, 'sz'), idx: attr(ph, 'idx') };
    shapes.push(
      el('p:sp', {}, [
        el('p:nvSpPr', {}, [el('p:cNvPr', { id: id++, name: s.name }), el('p:cNvSpPr', {}, [el('a:spLocks', { noGrp: '1' })]), el('p:nvPr', {}, [el('p:ph', phAttrs)])]),
        el('p:spPr'),
        el('p:txBody', {}, [el('a:bodyPr'), el('a:lstStyle'), el('a:p')]),
      ]),
    );
  }
  const root = el('p:sld', { ...PML_NAMESPACES }, [
    el('p:cSld', {}, [el('p:spTree', {}, [...treeHeader(), ...shapes])]),
    el('p:clrMapOvr', {}, [el('a:masterClrMapping')]),
  ]);
  deck.pkg.put(part, root, CT.slide);
  deck.pkg.addRel(part, REL.slideLayout, layout.part);
  return part;
}

// Relationship types whose targets are shared, not owned: a copy points to the same part.
const SHARED = /\/(slideLayout|slideMaster|notesMaster|handoutMaster|image|audio|video|media|hyperlink|theme|commentAuthors|font|slide)$/;

/**
 * Copies a part and, recursively, the parts it owns (charts, their workbooks, diagrams,
 * notes), so the copy can be changed without changing the original. `owner` is the new
 * slide a copied notes slide points back to.
 */
function copyPart(pkg: OpcPackage, source: string, owner: string, copies: Map<string, string>, skip: (r: Relationship) => boolean, name?: string): string {
  const done = copies.get(source);
  if (done) return done;
  const m = /^(.*?)(\d*)(\.[^./]+)$/.exec(source);
  const target = name ?? (m ? pkg.freeName(m[1]!, m[3]!) : pkg.freeName(`${source}-copy`, ''));
  copies.set(source, target);
  const type = pkg.contentType(source);
  const isXml = /\.xml$/i.test(source);
  pkg.put(target, isXml ? cloneElement(pkg.xml(source)) : pkg.bytes(source), type);
  const rels: Relationship[] = [];
  for (const r of pkg.rels(source)) {
    if (skip(r)) continue;
    const resolved = pkg.resolve(source, r);
    if (r.external || resolved === undefined) {
      rels.push({ ...r });
      continue;
    }
    // A notes slide's `slide` relationship is its owner; a slide's points to another slide (an action link).
    const backLink = r.type === REL.slide && /notesSlide/.test(source);
    const to = backLink ? owner : SHARED.test(r.type) ? resolved : copyPart(pkg, resolved, owner, copies, () => false);
    rels.push({ ...r, target: posix.relative(posix.dirname(target), to) });
  }
  pkg.setRels(target, rels);
  return target;
}

/** Adds a copy of a master slide; its notes are copied too unless `dropNotes`. */
export function cloneSlide(deck: Deck, source: string, dropNotes: boolean): string {
  const part = deck.pkg.freeName('ppt/slides/slide', '.xml');
  const skip = (r: Relationship) => dropNotes && r.type === REL.notesSlide;
  return copyPart(deck.pkg, source, part, new Map(), skip, part);
}

/** The notes slide of a slide part, if it has one. */
export function notesOf(deck: Deck, slide: string): string | undefined {
  return deck.pkg.targets(slide, REL.notesSlide)[0];
}

/** Sets the slide's name (p:cSld/@name) and whether it is hidden. */
export function setSlideProps(deck: Deck, slide: string, name: string | undefined, hidden: boolean | undefined): void {
  const root = deck.pkg.xml(slide);
  if (name !== undefined) child(root, 'cSld')!.attrs.name = name;
  if (hidden === true) root.attrs.show = '0';
  if (hidden === false) delete root.attrs.show;
}
