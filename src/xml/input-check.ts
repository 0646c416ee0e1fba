import { SaxesParser } from 'saxes';
import { AppError } from '../errors.js';

/**
 * Deepest nesting accepted in XML (elements) and JSON (arrays and objects) input. Typst's
 * XML reader recurses per level and crashed its process on 200 000 levels; real data sheets
 * nest a dozen levels. (Typst's `json()` itself stops at 128 levels with a template error.)
 */
export const MAX_INPUT_DEPTH = 256;

/**
 * Checks that input XML is well-formed, declares no DOCTYPE and nests at most
 * {@link MAX_INPUT_DEPTH} elements deep. Refusing DTDs outright is what keeps external
 * entities and entity expansion (billion laughs) out of every later parser (XSLT, Typst).
 * Streams, so memory stays flat whatever the size.
 */
export function assertSafeXml(input: Buffer, what = 'XML input'): void {
  const parser = new SaxesParser({ xmlns: false, position: true });
  let failure: string | null = null;
  let sawRoot = false;
  let depth = 0;
  parser.on('doctype', () => {
    failure ??= `${what} declares a DOCTYPE; DTDs and entity declarations are not accepted`;
  });
  parser.on('opentag', () => {
    sawRoot = true;
    if (++depth > MAX_INPUT_DEPTH) failure ??= `${what} nests elements deeper than ${MAX_INPUT_DEPTH} levels (line ${parser.line})`;
  });
  parser.on('closetag', () => {
    depth--;
  });
  parser.on('error', (err) => {
    failure ??= `${what} is not well-formed XML: ${err.message}`;
  });
  const text = input.toString('utf8');
  const chunk = 1 << 16;
  for (let i = 0; i < text.length && failure === null; i += chunk) parser.write(text.slice(i, i + chunk));
  if (failure === null) parser.close();
  if (failure === null && !sawRoot) failure = `${what} has no root element`;
  if (failure !== null) throw new AppError('invalid_xml', failure, { details: [{ field: 'body', message: failure }] });
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest nesting of arrays and objects in JSON text, counting brackets outside strings,
 * stopping as soon as it passes `limit` (bytes suffice: these are ASCII and never part of a
 * UTF-8 sequence). Malformed text is left to JSON.parse.
 */
export function jsonDepthOver(input: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

/** Checks that JSON input nests at most {@link MAX_INPUT_DEPTH} levels deep, then that it parses. */
export function assertJson(input: Buffer, what = 'JSON input'): void {
  if (jsonDepthOver(input, MAX_INPUT_DEPTH)) {
    const message = `${what} nests arrays and objects deeper than ${MAX_INPUT_DEPTH} levels`;
    throw new AppError('bad_request', message, { details: [{ field: 'body', message }] });
  }
  try {
    JSON.parse(input.toString('utf8'));
  } catch (err) {
    throw new AppError('bad_request', `${what} is not valid JSON: ${(err as Error).message}`, { details: [{ field: 'body', message: 'invalid JSON' }] });
  }
}
