import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { AppError } from '../errors.js';

/** Fanout settings from restapi/config.ion, with the contract's defaults. */
export interface FanoutOptions {
  rootPath: string;
  itemType: string;
  itemAttribute: string;
}

/** One part of a split input: a complete XML document, and a label for bookmarks. */
export interface FanoutPart {
  xml: Buffer;
  label: string;
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

function startTag(tag: SaxesTagPlain): string {
  const attrs = Object.entries(tag.attributes)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
  return `<${tag.name}${attrs}>`;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * Splits XML at the elements whose path of local names equals `rootPath` (e.g. `/data/item`,
 * a plain concatenation, not XPath) and whose `itemAttribute` equals `itemType` (every element
 * at the path when itemAttribute is empty). Each part keeps its ancestors' start tags (with
 * their attributes and namespace declarations) so it is a document of the same shape as the
 * input with one item. Streams: parts are handed out in batches after each 1 MiB of input,
 * so memory holds the current batch, never a document tree.
 */
export async function* splitXml(input: Buffer, opts: FanoutOptions): AsyncGenerator<FanoutPart[]> {
  const target = opts.rootPath.split('/').filter(Boolean);
  const parser = new SaxesParser({ xmlns: false });
  const stack: SaxesTagPlain[] = [];
  let capture: string[] | null = null;
  let captureDepth = 0;
  let label = '';
  let count = 0;
  let failure: string | null = null;
  let ready: FanoutPart[] = [];

  parser.on('doctype', () => (failure ??= 'input declares a DOCTYPE'));
  parser.on('error', (e) => (failure ??= e.message));
  parser.on('opentag', (tag) => {
    stack.push(tag);
    if (capture) {
      capture.push(startTag(tag));
      return;
    }
    const matchesPath = stack.length === target.length && stack.every((t, i) => localName(t.name) === target[i]);
    const matchesType = opts.itemAttribute === '' || tag.attributes[opts.itemAttribute] === opts.itemType;
    if (matchesPath && matchesType) {
      capture = [startTag(tag)];
      captureDepth = stack.length;
      const a = tag.attributes;
      label = String(a.title ?? a.name ?? a.id ?? '');
    }
  });
  parser.on('text', (text) => capture?.push(escapeText(text)));
  parser.on('cdata', (text) => capture?.push(`<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`));
  parser.on('closetag', (tag) => {
    if (capture) {
      capture.push(`</${tag.name}>`);
      if (stack.length === captureDepth) {
        const ancestors = stack.slice(0, -1);
        const xml = ancestors.map(startTag).join('') + capture.join('') + ancestors.reverse().map((t) => `</${t.name}>`).join('');
        count++;
        ready.push({ xml: Buffer.from(xml, 'utf8'), label: label || `Part ${count}` });
        capture = null;
      }
    }
    stack.pop();
  });

  const text = input.toString('utf8');
  const chunk = 1 << 20;
  for (let i = 0; i <= text.length; i += chunk) {
    if (i < text.length) parser.write(text.slice(i, i + chunk));
    else parser.close();
    if (failure !== null) throw new AppError('invalid_xml', `fanout: input is not well-formed XML: ${failure}`);
    if (ready.length > 0) {
      yield ready;
      ready = [];
    }
  }
}

/** The contract's 500 for a fanout that finds nothing to split. */
export function noFanoutData(opts: FanoutOptions): AppError {
  return new AppError(
    'no_fanout_data',
    `the input could not be enqueued because no fanout data was found (rootPath ${opts.rootPath}${opts.itemAttribute ? `, ${opts.itemAttribute}="${opts.itemType}"` : ''})`,
  );
}
