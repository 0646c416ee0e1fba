// A small XML tree on top of saxes: enough to edit OOXML parts and read the input format.
// Names stay as written (prefix included); readers match on local names so a part that
// binds its namespaces to other prefixes still reads, writers use the canonical prefixes.
import { SaxesParser } from 'saxes';

/** An element; text children are plain strings. Attribute order is kept. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

// Real documents nest a few dozen levels; a limit keeps the recursive walks below off the stack's end.
const MAX_DEPTH = 256;

/** Decodes a part by its byte order mark: UTF-16 (LE/BE) or UTF-8 (BOM optional). */
export function decodeXml(data: Buffer): string {
  if (data[0] === 0xff && data[1] === 0xfe) return data.subarray(2).toString('utf16le');
  if (data[0] === 0xfe && data[1] === 0xff) {
    const swapped = Buffer.from(data.subarray(2));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  const text = data.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parses a whole document. A DOCTYPE is refused before anything in it is looked at, so
 * entities (external or recursive) are never declared, let alone resolved; `fail` turns
 * the problem into the caller's error type.
 */
export function parseXml(text: string, what: string, fail: (message: string) => Error): XmlElement {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let problem: string | undefined;
  parser.on('doctype', () => {
    problem ??= `${what} declares a DOCTYPE; DTDs and entity declarations are refused`;
  });
  parser.on('error', (err) => {
    problem ??= `${what} is not well-formed XML: ${err.message}`;
  });
  parser.on('opentag', (tag) => {
    if (stack.length >= MAX_DEPTH) problem ??= `${what} nests elements deeper than ${MAX_DEPTH} levels`;
    const el: XmlElement = { name: tag.name, attrs: { ...tag.attributes }, children: [] };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root ??= el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  const addText = (t: string) => {
    const parent = stack[stack.length - 1];
    if (!parent || t === '') return;
    const last = parent.children.length - 1;
    if (typeof parent.children[last] === 'string') parent.children[last] += t;
    else parent.children.push(t);
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  // saxes keeps going after an error; stop feeding it at the first one.
  parser.write(text);
  if (problem === undefined) parser.close();
  if (problem !== undefined) throw fail(problem);
  if (!root) throw fail(`${what} has no root element`);
  return root;
}

const textEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const attrEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '"': '&quot;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

/** Escapes character data. */
export const escapeText = (s: string): string => s.replace(/[&<>\r]/g, (c) => textEscapes[c]!);
/** Escapes an attribute value (whitespace characters too, so they survive normalisation). */
export const escapeAttr = (s: string): string => s.replace(/[&<"\t\n\r]/g, (c) => attrEscapes[c]!);

function write(el: XmlElement, out: string[]): void {
  out.push('<', el.name);
  for (const k in el.attrs) out.push(' ', k, '="', escapeAttr(el.attrs[k]!), '"');
  if (el.children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const c of el.children) {
    if (typeof c === 'string') out.push(escapeText(c));
    else write(c, out);
  }
  out.push('</', el.name, '>');
}

/** Serialises a part with the declaration Office writes. */
export function serializeXml(root: XmlElement): Buffer {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'];
  write(root, out);
  return Buffer.from(out.join(''), 'utf8');
}

/** The local part of a qualified name. */
export const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

/** Builds an element; undefined attribute values are left out. */
export function el(name: string, attrs: Record<string, string | number | undefined> = {}, children: XmlNode[] = []): XmlElement {
  const a: Record<string, string> = {};
  for (const k in attrs) if (attrs[k] !== undefined) a[k] = String(attrs[k]);
  return { name, attrs: a, children };
}

/** Element children only. */
export const elements = (parent: XmlElement): XmlElement[] => parent.children.filter((c): c is XmlElement => typeof c !== 'string');

/** The first child element with this local name. */
export function child(parent: XmlElement | undefined, local: string): XmlElement | undefined {
  if (!parent) return undefined;
  for (const c of parent.children) if (typeof c !== 'string' && localName(c.name) === local) return c;
  return undefined;
}

/** All child elements with this local name. */
export const childrenNamed = (parent: XmlElement, local: string): XmlElement[] => elements(parent).filter((c) => localName(c.name) === local);

/** Follows a path of local names through first children. */
export function path(parent: XmlElement | undefined, ...locals: string[]): XmlElement | undefined {
  let cur = parent;
  for (const l of locals) cur = child(cur, l);
  return cur;
}

/** An attribute by local name (so `r:id` is found whatever the prefix). */
export function attr(e: XmlElement | undefined, local: string): string | undefined {
  if (!e) return undefined;
  if (local in e.attrs) return e.attrs[local];
  for (const k in e.attrs) if (localName(k) === local && k.includes(':')) return e.attrs[k];
  return undefined;
}

/** A namespaced attribute by local name, e.g. `r:id` (never the unprefixed `id` beside it). */
export function nsAttr(e: XmlElement | undefined, local: string): string | undefined {
  if (!e) return undefined;
  for (const k in e.attrs) if (k.includes(':') && localName(k) === local) return e.attrs[k];
  return undefined;
}

/** All text below an element, in document order. */
export function textContent(e: XmlNode): string {
  return typeof e === 'string' ? e : e.children.map(textContent).join('');
}

/** A deep copy (parts and subtrees are reused as templates). */
export function cloneElement(e: XmlElement): XmlElement {
  return { name: e.name, attrs: { ...e.attrs }, children: e.children.map((c) => (typeof c === 'string' ? c : cloneElement(c))) };
}

/** Every element of the subtree, the root first. */
export function* descendants(e: XmlElement): Generator<XmlElement> {
  yield e;
  for (const c of e.children) if (typeof c !== 'string') yield* descendants(c);
}

/**
 * Inserts `node` into `parent` before the first child whose local name is in `before`
 * (the elements the schema puts after it), else at the end: OOXML sequences are ordered.
 */
export function insertBefore(parent: XmlElement, node: XmlElement, before: readonly string[]): void {
  const i = parent.children.findIndex((c) => typeof c !== 'string' && before.includes(localName(c.name)));
  if (i < 0) parent.children.push(node);
  else parent.children.splice(i, 0, node);
}

/** Removes the child elements with these local names. */
export function removeChildren(parent: XmlElement, locals: readonly string[]): void {
  parent.children = parent.children.filter((c) => typeof c === 'string' || !locals.includes(localName(c.name)));
}
