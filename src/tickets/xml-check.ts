import { SaxesParser } from 'saxes';
import { AppError } from '../errors.js';

/**
 * Checks that input XML is well-formed and declares no DOCTYPE. Refusing DTDs outright is
 * what keeps external entities and entity expansion (billion laughs) out of every later
 * parser (XSLT, Typst). Streams, so memory stays flat whatever the size.
 */
export function assertSafeXml(input: Buffer, what = 'XML input'): void {
  const parser = new SaxesParser({ xmlns: false, position: true });
  let failure: string | null = null;
  let sawRoot = false;
  parser.on('doctype', () => {
    failure ??= `${what} declares a DOCTYPE; DTDs and entity declarations are not accepted`;
  });
  parser.on('opentag', () => {
    sawRoot = true;
  });
  parser.on('error', (err) => {
    failure ??= `${what} is not well-formed XML: ${err.message}`;
  });
  const text = input.toString('utf8');
  const chunk = 1 << 20;
  for (let i = 0; i < text.length && failure === null; i += chunk) parser.write(text.slice(i, i + chunk));
  if (failure === null) parser.close();
  if (failure === null && !sawRoot) failure = `${what} has no root element`;
  if (failure !== null) throw new AppError('invalid_xml', failure, { details: [{ field: 'body', message: failure }] });
}

/** Checks that JSON input parses. */
export function assertJson(input: Buffer, what = 'JSON input'): void {
  try {
    JSON.parse(input.toString('utf8'));
  } catch (err) {
    throw new AppError('bad_request', `${what} is not valid JSON: ${(err as Error).message}`, { details: [{ field: 'body', message: 'invalid JSON' }] });
  }
}
