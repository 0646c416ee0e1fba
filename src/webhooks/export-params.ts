import type { ExportParam } from './connections.js';
import type { Exchange } from './http.js';
import { evaluateString, headersTree, jsonTree, xmlTree } from './xml-tree.js';

/** A header name as RFC 9110 spells tokens: such a path is looked up directly. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Values found, and a note per parameter that could not be read (the upload still succeeded). */
export interface Exported {
  values: Record<string, string>;
  problems: string[];
}

/**
 * Reads `exportParams` from an upload's answer: `headers` (default) by header name, or XPath
 * over the lower-case header map; `jsonBody` by XPath over the JSON as a tree (see jsonTree);
 * `xmlBody` by XPath with the document element as context. Bodies are parsed once, on demand.
 */
export function exportParams(params: readonly ExportParam[], ex: Exchange): Exported {
  const out: Exported = { values: {}, problems: [] };
  const trees = new Map<string, ReturnType<typeof jsonTree>>();
  const tree = (source: 'headers' | 'jsonBody' | 'xmlBody') => {
    let t = trees.get(source);
    if (!t) {
      if (source === 'headers') t = headersTree(ex.headers);
      else if (source === 'jsonBody') t = jsonTree(JSON.parse(ex.body.toString('utf8')) as unknown);
      else t = xmlTree(ex.body);
      trees.set(source, t);
    }
    return t;
  };
  for (const p of params) {
    const source = p.source ?? 'headers';
    try {
      let value: string | undefined;
      if (source === 'headers' && HEADER_NAME.test(p.path) && ex.headers[p.path.toLowerCase()] !== undefined) value = ex.headers[p.path.toLowerCase()];
      else value = evaluateString(p.path, tree(source));
      if (value === undefined) out.problems.push(`exportParams ${p.name}: ${source} ${p.path} matched nothing`);
      else out.values[p.name] = value;
    } catch (err) {
      out.problems.push(`exportParams ${p.name}: ${source} ${p.path} could not be read (${(err as Error).message.split('\n')[0]})`);
    }
  }
  return out;
}
