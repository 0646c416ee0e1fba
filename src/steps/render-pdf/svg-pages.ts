// Previews (the Studio): the typst.ts "rich" SVG of a document is one <svg> with shared glyph
// definitions and one <g class="typst-page"> per page, stacked. Each page becomes an SVG of
// its own, keeping only the glyphs it uses, and its text is read from the transparent text
// layer typst.ts writes for selection (<foreignObject><h5:div class="tsel">run</h5:div>).

/** One page of a preview: size in points, a standalone SVG, and the page's text. */
export interface SvgPage {
  width: number;
  height: number;
  svg: string;
  text: string;
}

interface Element {
  name: string;
  /** The whole opening tag. */
  open: string;
  start: number;
  end: number;
}

// typst.ts writes no `>` inside attribute values, so a tag ends at the first `>`.
const tagPattern = /<(\/?)([A-Za-z_][\w:.-]*)([^>]*)>/g;

/** The direct children of the element whose content spans [from, to) of `s`. */
function childrenOf(s: string, from: number, to: number): Element[] {
  const out: Element[] = [];
  let depth = 0;
  let current: { name: string; open: string; start: number } | null = null;
  tagPattern.lastIndex = from;
  for (let m = tagPattern.exec(s); m && m.index < to; m = tagPattern.exec(s)) {
    const closing = m[1] === '/';
    const selfClosing = m[3]!.endsWith('/');
    if (!closing) {
      if (depth === 0) current = { name: m[2]!, open: m[0], start: m.index };
      if (selfClosing) {
        if (depth === 0 && current) out.push({ ...current, end: tagPattern.lastIndex });
      } else depth++;
    } else {
      depth--;
      if (depth === 0 && current) out.push({ ...current, end: tagPattern.lastIndex });
    }
  }
  return out;
}

const attrPatterns = new Map<string, RegExp>();
function attr(tag: string, name: string): string | undefined {
  let re = attrPatterns.get(name);
  if (!re) attrPatterns.set(name, (re = new RegExp(`\\s${name}="([^"]*)"`)));
  return re.exec(tag)?.[1];
}

/** Ids a fragment refers to (`href="#id"`, `xlink:href="#id"`, `url(#id)`). */
function referencedIds(fragment: string, into: Set<string>): void {
  for (const m of fragment.matchAll(/(?:href="#|url\(#)([^")]+)/g)) into.add(m[1]!);
}

interface Definition {
  id: string | undefined;
  text: string;
}

/** The entries of a definitions block, each with its id. */
function definitions(s: string, defs: Element): Definition[] {
  const contentEnd = s.lastIndexOf('</', defs.end);
  return childrenOf(s, defs.start + defs.open.length, contentEnd).map((e) => ({ id: attr(e.open, 'id'), text: s.slice(e.start, e.end) }));
}

/** A definitions block cut down to the ids used (and the ids those use). */
function pruned(open: string, entries: Definition[], used: Set<string>): string {
  const keep = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const e of entries) {
      if (e.id === undefined || keep.has(e.id) || !used.has(e.id)) continue;
      keep.add(e.id);
      referencedIds(e.text, used);
      grew = true;
    }
  }
  return open + entries.filter((e) => e.id === undefined || keep.has(e.id)).map((e) => e.text).join('') + '</defs>';
}

type Matrix = [number, number, number, number, number, number];
const identity: Matrix = [1, 0, 0, 1, 0, 0];

function multiply(m: Matrix, n: Matrix): Matrix {
  return [m[0] * n[0] + m[2] * n[1], m[1] * n[0] + m[3] * n[1], m[0] * n[2] + m[2] * n[3], m[1] * n[2] + m[3] * n[3], m[0] * n[4] + m[2] * n[5] + m[4], m[1] * n[4] + m[3] * n[5] + m[5]];
}

/** The matrix of an SVG transform list (translate, scale, matrix; anything else counts as none). */
function parseTransform(value: string | undefined): Matrix {
  let m = identity;
  if (!value) return m;
  for (const [, fn, args] of value.matchAll(/(\w+)\(([^)]*)\)/g)) {
    const n = args!.split(/[\s,]+/).filter(Boolean).map(Number);
    if (fn === 'translate') m = multiply(m, [1, 0, 0, 1, n[0] ?? 0, n[1] ?? 0]);
    else if (fn === 'scale') m = multiply(m, [n[0] ?? 1, 0, 0, n[1] ?? n[0] ?? 1, 0, 0]);
    else if (fn === 'matrix' && n.length === 6) m = multiply(m, n as Matrix);
  }
  return m;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (s: string): string =>
  s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16)) : e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : (entities[e] ?? whole),
  );

interface Run {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

/**
 * The text of a page in layout order: runs on one baseline joined (with a space where there
 * is a gap between them), lines by newlines. Positions come from the transforms above each
 * text layer box.
 */
function pageText(s: string, from: number, to: number): string {
  const runs: Run[] = [];
  const stack: Matrix[] = [identity];
  tagPattern.lastIndex = from;
  for (let m = tagPattern.exec(s); m && m.index < to; m = tagPattern.exec(s)) {
    const [tag, closing, name, rest] = m;
    if (closing === '/') {
      if (name === 'g') stack.pop();
      continue;
    }
    if (name === 'g' && !rest!.endsWith('/')) stack.push(multiply(stack.at(-1)!, parseTransform(attr(tag, 'transform'))));
    if (name !== 'foreignObject') continue;
    const close = s.indexOf('</foreignObject>', tagPattern.lastIndex);
    const inner = s.slice(tagPattern.lastIndex, close);
    const text = unescapeXml(inner.replace(/<[^>]*>/g, ''));
    if (text.trim() === '') continue;
    const t = stack.at(-1)!;
    const x = Number(attr(tag, 'x') ?? 0);
    const y = Number(attr(tag, 'y') ?? 0);
    const w = Number(attr(tag, 'width') ?? 0);
    const h = Number(attr(tag, 'height') ?? 0);
    const point = (px: number, py: number) => [t[0] * px + t[2] * py + t[4], t[1] * px + t[3] * py + t[5]] as const;
    const [ax, ay] = point(x, y + h);
    const [bx] = point(x + w, y + h);
    runs.push({ text, x0: Math.min(ax, bx), x1: Math.max(ax, bx), y: ay, size: Math.abs(h * Math.hypot(t[1], t[3])) || 1 });
  }
  let out = '';
  let prev: Run | undefined;
  for (const r of runs) {
    if (prev) {
      const sameLine = Math.abs(r.y - prev.y) < Math.max(prev.size, r.size) * 0.4 && r.x0 >= prev.x1 - prev.size * 0.2;
      if (!sameLine) out += '\n';
      else if (!/\s$/.test(out) && !/^\s/.test(r.text) && r.x0 - prev.x1 > Math.min(prev.size, r.size) * 0.12) out += ' ';
    }
    out += r.text;
    prev = r;
  }
  return out.replace(/[ \t]+\n/g, '\n').trim();
}

/** Splits a typst.ts rich SVG into one SVG (and the text) per page. */
export function splitSvgPages(svg: string): SvgPage[] {
  const rootEnd = svg.indexOf('>', svg.indexOf('<svg')) + 1;
  const root = svg.slice(svg.indexOf('<svg'), rootEnd);
  const ns = [...root.matchAll(/\s(xmlns(?::\w+)?)="([^"]*)"/g)].map((m) => ` ${m[1]}="${m[2]}"`).join('');
  const parts = childrenOf(svg, rootEnd, svg.lastIndexOf('</svg>'));
  const pages = parts.filter((p) => p.name === 'g' && attr(p.open, 'class') === 'typst-page');
  // Glyph definitions are cut down per page; other shared parts (styles, clip paths) are kept.
  const shared = parts
    .filter((p) => !pages.includes(p))
    .map((p): { open: string; entries: Definition[] } | { text: string } => (p.name === 'defs' && attr(p.open, 'class') === 'glyph' ? { open: p.open, entries: definitions(svg, p) } : { text: svg.slice(p.start, p.end) }));
  return pages.map((page) => {
    const width = Number(attr(page.open, 'data-page-width') ?? 0);
    const height = Number(attr(page.open, 'data-page-height') ?? 0);
    // The page at the origin instead of below the pages before it.
    const body = page.open.replace(/\stransform="[^"]*"/, '') + svg.slice(page.start + page.open.length, page.end);
    const used = new Set<string>();
    referencedIds(body, used);
    const head = shared.map((p) => ('entries' in p ? pruned(p.open, p.entries, used) : p.text)).join('');
    return {
      width,
      height,
      svg: `<svg class="typst-doc" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"${ns}>${head}${body}</svg>`,
      text: pageText(svg, page.start + page.open.length, page.end),
    };
  });
}
