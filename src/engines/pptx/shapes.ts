// The shapes of a slide, layout or master: names, placeholder identity and boxes.
import { attr, child, elements, localName, path, type XmlElement } from './xml.js';

/** A placeholder's identity (`<p:ph>`); a missing type means `obj` as ECMA-376 says. */
export interface Placeholder {
  type: string;
  idx?: string;
}

/** One drawing element of a shape tree. */
export interface ShapeRef {
  el: XmlElement;
  /** The spTree or group holding it (replacements go to the same place). */
  parent: XmlElement;
  /** `sp`, `pic`, `graphicFrame`, `grpSp`, `cxnSp`, … */
  kind: string;
  name: string;
  ph?: Placeholder;
}

/** A rectangle in EMU. */
export interface Box {
  x: number;
  y: number;
  cx: number;
  cy: number;
}

const NON_VISUAL = ['nvSpPr', 'nvPicPr', 'nvGraphicFramePr', 'nvGrpSpPr', 'nvCxnSpPr', 'nvContentPartPr'];
const DRAWING = new Set(['sp', 'pic', 'graphicFrame', 'grpSp', 'cxnSp', 'contentPart']);

/** The `p:nv…Pr` element of a shape. */
export function nonVisual(shape: XmlElement): XmlElement | undefined {
  return elements(shape).find((c) => NON_VISUAL.includes(localName(c.name)));
}

/** The placeholder of a shape, if it is one. */
export function placeholderOf(shape: XmlElement): Placeholder | undefined {
  const ph = path(nonVisual(shape), 'nvPr', 'ph');
  if (!ph) return undefined;
  const idx = attr(ph, 'idx');
  return { type: attr(ph, 'type') ?? 'obj', ...(idx === undefined ? {} : { idx }) };
}

/** The spTree of a slide-like part (`p:sld`, `p:sldLayout`, `p:sldMaster`, `p:notes`). */
export function shapeTree(root: XmlElement): XmlElement {
  const tree = path(root, 'cSld', 'spTree');
  if (!tree) throw new Error(`<${root.name}> has no p:cSld/p:spTree`);
  return tree;
}

/** Every drawing element in document (z) order, descending into groups. */
export function listShapes(tree: XmlElement): ShapeRef[] {
  const out: ShapeRef[] = [];
  const walk = (parent: XmlElement) => {
    for (const c of elements(parent)) {
      const kind = localName(c.name);
      if (kind === 'AlternateContent') {
        // Markup compatibility: the Fallback is what every consumer understands.
        const fallback = child(c, 'Fallback');
        if (fallback) walk(fallback);
        continue;
      }
      if (!DRAWING.has(kind)) continue;
      const ph = placeholderOf(c);
      out.push({ el: c, parent, kind, name: attr(child(nonVisual(c), 'cNvPr'), 'name') ?? '', ...(ph ? { ph } : {}) });
      if (kind === 'grpSp') walk(c);
    }
  };
  walk(tree);
  return out;
}

/** The shape's own box (`a:xfrm` of spPr, or `p:xfrm` of a graphic frame), if it has one. */
export function ownBox(shape: XmlElement): Box | undefined {
  const xfrm = localName(shape.name) === 'graphicFrame' ? child(shape, 'xfrm') : path(child(shape, 'spPr') ?? child(shape, 'grpSpPr'), 'xfrm');
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  if (!off || !ext) return undefined;
  return { x: Number(attr(off, 'x')) || 0, y: Number(attr(off, 'y')) || 0, cx: Number(attr(ext, 'cx')) || 0, cy: Number(attr(ext, 'cy')) || 0 };
}

/** The master type a layout placeholder inherits from (ECMA-376 19.3.1.36: titles, else body). */
export function masterTypeOf(type: string): string {
  if (type === 'title' || type === 'ctrTitle') return 'title';
  if (['dt', 'ftr', 'sldNum', 'hdr'].includes(type)) return type;
  return 'body';
}

/**
 * The layout placeholder a slide placeholder inherits from: same idx if there is one,
 * else the same type (titles match either title type).
 */
export function inheritedFrom(ph: Placeholder, candidates: ShapeRef[]): ShapeRef | undefined {
  const phs = candidates.filter((c) => c.ph);
  if (ph.idx !== undefined) {
    const byIdx = phs.find((c) => c.ph!.idx === ph.idx);
    if (byIdx) return byIdx;
  }
  const title = (t: string) => t === 'title' || t === 'ctrTitle';
  return phs.find((c) => c.ph!.type === ph.type || (title(c.ph!.type) && title(ph.type)));
}
