import { AppError } from '../errors.js';
import { convertMediaType, ConvertOptionError, parseConvertOptions } from '../steps/convert/options.js';
import { targets } from '../steps/targets.js';

/** The conversion a request asks for: the option string to store and the output it yields. */
export interface ConvertParam {
  /** The option set as given (trimmed); the convert step parses it again and reports its fallbacks. */
  source: string;
  mediaType: 'image/png' | 'image/jpeg' | 'application/zip';
}

/**
 * Resolves `convert` from the query (which wins) and `restapi/config.ion`, and validates it.
 * An empty query value switches a configured conversion off. A configured conversion does
 * not apply to renderpptx (it is a PDF feature); asking for one in the query there is a 400.
 */
export function resolveConvert(target: 'pdf' | 'pptx', query: string | undefined, configured: unknown): ConvertParam | undefined {
  const fromQuery = query !== undefined;
  const source = (fromQuery ? query : typeof configured === 'string' ? configured : '').trim();
  if (source === '') return undefined;
  if (!(targets[target].options as readonly string[]).includes('convert')) {
    if (!fromQuery) return undefined;
    throw convertError('convert is supported for renderpdf only', 'not supported for this target');
  }
  try {
    const options = parseConvertOptions(source);
    return { source, mediaType: convertMediaType(options) };
  } catch (err) {
    if (!(err instanceof ConvertOptionError)) throw err;
    const where = fromQuery ? '' : ' (from restapi/config.ion)';
    throw convertError(`${err.message}${where}`, err.message);
  }
}

function convertError(message: string, detail: string): AppError {
  return new AppError('bad_request', `convert: ${message}`, { details: [{ field: 'convert', message: detail }] });
}
