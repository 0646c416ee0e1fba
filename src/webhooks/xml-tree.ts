import { createRequire } from 'node:module';
import { DOMImplementation, DOMParser } from '@xmldom/xmldom';
import { assertSafeXml } from '../xml/index.js';

// Loaded without its typings on purpose: they pull the DOM library into the whole program, which
// changes the global fetch types every test relies on. This is the one call used.
const xpath = createRequire(import.meta.url)('xpath') as { select(expression: string, node: unknown, single: true): unknown };

type XmlDocument = ReturnType<DOMImplementation['createDocument']>;
type XmlElement = ReturnType<XmlDocument['createElement']>;

const NAME = /^[A-Za-z_][\w.-]*$/;

/** Names a JSON key can keep as an element name (`xml…` names are reserved by XML). */
function elementName(key: string): string | null {
  return NAME.test(key) && !/^xml/i.test(key) ? key : null;
}

function append(doc: XmlDocument, parent: XmlElement, key: string, value: unknown): void {
  if (Array.isArray(value)) {
    // Each item is an element of the array's name, so `items[2]` is the second item (one-based).
    for (const item of value) append(doc, parent, key, item);
    return;
  }
  const name = elementName(key);
  const el = doc.createElement(name ?? '_');
  if (name === null) el.setAttribute('name', key);
  fill(doc, el, value);
  parent.appendChild(el);
}

function fill(doc: XmlDocument, el: XmlElement, value: unknown): void {
  if (value === null || value === undefined) return;
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) append(doc, el, k, v);
    return;
  }
  el.appendChild(doc.createTextNode(String(value)));
}

/**
 * A JSON value as an XML tree for XPath: the document element is `json`; object members become
 * child elements named by their keys; array items repeat their member's element (a top-level
 * array's items are `item` elements); scalars become text. Keys that are not XML names become
 * `_` elements with a `name` attribute.
 */
export function jsonTree(value: unknown): XmlElement {
  const doc = new DOMImplementation().createDocument(null, 'json', null);
  const root = doc.documentElement!;
  if (Array.isArray(value)) for (const item of value) append(doc, root, 'item', item);
  else fill(doc, root, value);
  return root;
}

/** Response headers as an XML tree (`headers` with one child per lower-case header name). */
export function headersTree(headers: Readonly<Record<string, string>>): XmlElement {
  const doc = new DOMImplementation().createDocument(null, 'headers', null);
  const root = doc.documentElement!;
  for (const [name, value] of Object.entries(headers)) append(doc, root, name.toLowerCase(), value);
  return root;
}

/** Parses response XML; a DOCTYPE (entities, external DTDs) or malformed XML is refused. */
export function xmlTree(data: Buffer): XmlElement {
  assertSafeXml(data, 'the response');
  const doc = new DOMParser().parseFromString(data.toString('utf8'), 'application/xml');
  const root = doc.documentElement;
  if (!root) throw new Error('the response has no document element');
  return root;
}

/**
 * Evaluates an XPath 1.0 expression with `context` as the context node and returns its string
 * value (first node of a node-set; numbers and booleans as text), or undefined for an empty
 * node-set.
 */
export function evaluateString(expression: string, context: XmlElement): string | undefined {
  const result = xpath.select(expression, context, true);
  if (result === null || result === undefined) return undefined;
  if (typeof result === 'object') return (result as { textContent?: string | null; nodeValue?: string | null }).textContent ?? (result as { nodeValue?: string | null }).nodeValue ?? '';
  return String(result);
}
