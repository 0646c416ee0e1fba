// The master deck as the renderer sees it: its layouts, its own slides, slide size, and
// where an inherited placeholder sits.
import { PptxError } from './errors.js';
import { REL } from './ooxml.js';
import { OpcPackage } from './package.js';
import { inheritedFrom, listShapes, masterTypeOf, ownBox, shapeTree, type Box, type ShapeRef } from './shapes.js';
import { attr, child, childrenNamed, localName, nsAttr, path, textContent } from './xml.js';

/** A slide layout of one of the deck's slide masters. */
export interface LayoutInfo {
  name: string;
  /** `title`, `obj`, `twoObj`, … (ST_SlideLayoutType); `cust` when absent. */
  type: string;
  part: string;
  master: string;
}

/** One of the master deck's own slides, in presentation order. */
export interface SlideInfo {
  part: string;
  /** The `p:sldId/@id`. */
  id: number;
}

export class Deck {
  readonly layouts: LayoutInfo[] = [];
  readonly slides: SlideInfo[] = [];
  slideSize = { cx: 12192000, cy: 6858000 };

  private constructor(
    readonly pkg: OpcPackage,
    readonly presentationPart: string,
  ) {}

  /** Opens and checks a master deck (a PptxError('master') when it is not a presentation). */
  static async open(master: Buffer): Promise<Deck> {
    const pkg = await OpcPackage.open(master);
    const main = pkg.targets('', REL.officeDocument)[0];
    if (main === undefined || !pkg.has(main)) throw new PptxError('master', 'the master is not a PPTX file: it has no ppt/presentation.xml (no officeDocument relationship)');
    const deck = new Deck(pkg, main);
    const pres = pkg.xml(main);
    if (localName(pres.name) !== 'presentation') throw new PptxError('master', `the master's main part is <${pres.name}>, not a presentation (is it a Word or Excel file?)`);
    const size = child(pres, 'sldSz');
    if (size) deck.slideSize = { cx: Number(attr(size, 'cx')) || deck.slideSize.cx, cy: Number(attr(size, 'cy')) || deck.slideSize.cy };
    const relOf = (id: string | undefined) => pkg.rels(main).find((r) => r.id === id);
    for (const m of childrenNamed(child(pres, 'sldMasterIdLst') ?? pres, 'sldMasterId')) {
      const rel = relOf(nsAttr(m, 'id'));
      const masterPart = rel && pkg.resolve(main, rel);
      if (masterPart === undefined) throw new PptxError('master', 'the master deck lists a slide master that is missing');
      deck.readLayouts(masterPart);
    }
    if (deck.layouts.length === 0) throw new PptxError('master', 'the master deck has no slide layouts');
    for (const s of childrenNamed(child(pres, 'sldIdLst') ?? pres, 'sldId')) {
      const rel = relOf(nsAttr(s, 'id'));
      const part = rel && pkg.resolve(main, rel);
      if (part === undefined) throw new PptxError('master', `the master deck lists slide ${deck.slides.length + 1} but its part is missing`);
      deck.slides.push({ part, id: Number(attr(s, 'id')) });
    }
    return deck;
  }

  private readLayouts(masterPart: string): void {
    const master = this.pkg.xml(masterPart);
    for (const l of childrenNamed(child(master, 'sldLayoutIdLst') ?? master, 'sldLayoutId')) {
      const rel = this.pkg.rels(masterPart).find((r) => r.id === nsAttr(l, 'id'));
      const part = rel && this.pkg.resolve(masterPart, rel);
      if (part === undefined) continue;
      const root = this.pkg.xml(part);
      this.layouts.push({ name: attr(child(root, 'cSld'), 'name') ?? '', type: attr(root, 'type') ?? 'cust', part, master: masterPart });
    }
  }

  /** The layout with this name (exact, else case-insensitive); a PptxError('layout') naming the choices otherwise. */
  layout(name: string): LayoutInfo {
    const found = this.layouts.find((l) => l.name === name) ?? this.layouts.find((l) => l.name.toLowerCase() === name.toLowerCase());
    if (found) return found;
    const names = [...new Set(this.layouts.map((l) => `"${l.name}"`))].join(', ');
    throw new PptxError('layout', `layout "${name}" does not exist in the master deck; its layouts are ${names}`);
  }

  /** A master slide by 1-based number or by name (p:cSld/@name, else its title text). */
  slide(ref: string): SlideInfo {
    if (/^\d+$/.test(ref)) {
      const found = this.slides[Number(ref) - 1];
      if (found) return found;
      throw new PptxError('layout', `slide ${ref} to clone does not exist; the master deck has ${this.slides.length} slide(s)`);
    }
    const found = this.slides.find((s) => attr(child(this.pkg.xml(s.part), 'cSld'), 'name') === ref) ?? this.slides.find((s) => this.titleOf(s.part) === ref);
    if (found) return found;
    throw new PptxError('layout', `slide "${ref}" to clone does not exist in the master deck (neither a slide name nor a slide title)`);
  }

  private titleOf(part: string): string {
    const title = listShapes(shapeTree(this.pkg.xml(part))).find((s) => s.ph && (s.ph.type === 'title' || s.ph.type === 'ctrTitle'));
    return title ? textContent(title.el).trim() : '';
  }

  /** The layout a slide part uses. */
  layoutOfSlide(slidePart: string): string | undefined {
    return this.pkg.targets(slidePart, REL.slideLayout)[0];
  }

  /**
   * Where a shape of a slide sits: its own xfrm, else the layout placeholder it
   * inherits from, else the master's; a shape with none of those fills the slide.
   */
  boxOf(slidePart: string, shape: ShapeRef): Box {
    const own = ownBox(shape.el);
    if (own) return own;
    if (shape.ph) {
      const layoutPart = this.layoutOfSlide(slidePart);
      const layoutShape = layoutPart === undefined ? undefined : inheritedFrom(shape.ph, listShapes(shapeTree(this.pkg.xml(layoutPart))));
      const fromLayout = layoutShape && ownBox(layoutShape.el);
      if (fromLayout) return fromLayout;
      const masterPart = layoutPart === undefined ? undefined : this.pkg.targets(layoutPart, REL.slideMaster)[0];
      const type = masterTypeOf(layoutShape?.ph?.type ?? shape.ph.type);
      const masterShape = masterPart === undefined ? undefined : inheritedFrom({ type }, listShapes(shapeTree(this.pkg.xml(masterPart))));
      const fromMaster = masterShape && ownBox(masterShape.el);
      if (fromMaster) return fromMaster;
    }
    return { x: 0, y: 0, ...this.slideSize };
  }

  /** The notes master, if the deck has one. */
  notesMaster(): string | undefined {
    const pres = this.pkg.xml(this.presentationPart);
    const id = nsAttr(path(pres, 'notesMasterIdLst', 'notesMasterId'), 'id');
    const rel = this.pkg.rels(this.presentationPart).find((r) => r.id === id);
    return rel && this.pkg.resolve(this.presentationPart, rel);
  }
}
