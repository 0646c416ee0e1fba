import { SaxesParser } from 'saxes';
import { imageExtensions } from './image-type.js';

/** Longest URL considered (signed CDN and S3 URLs run to about 1,500 characters). */
export const MAX_URL_LENGTH = 2048;

// Names of fields that hold an image whatever the URL looks like (`<logo>`, `src="…"`,
// `"productImage": …`), so URLs without an extension (`…/render?id=7`) are fetched too.
const imageNames = /image|img|src|logo|photo|picture|icon|thumb/i;
const urlShape = /^https?:\/\/\S+$/i;

/** Asset URLs found in a job's data, in order of first appearance. */
export interface FoundUrls {
  /** Each distinct URL as written in the data (trimmed); templates look them up so. */
  urls: string[];
  /** Asset URLs beyond `max`, not taken. */
  dropped: number;
  /** URLs left out on purpose, with the reason (for the render log). */
  refused: { url: string; reason: string }[];
}

/**
 * Whether a value (text or attribute, trimmed) is an asset URL: an absolute http(s) URL of
 * at most MAX_URL_LENGTH characters whose path ends in an image extension, or any such URL
 * in a field whose name says image (see `imageNames`). Null when it is no candidate, a
 * reason string when it is one that must not be fetched.
 */
export function assetUrlCheck(value: string, name: string): 'asset' | null | string {
  if (value.length > MAX_URL_LENGTH || !urlShape.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!imageExtensions.test(url.pathname) && !imageNames.test(name)) return null;
  // Credentials in a URL would end up in logs and be sent to whoever the URL redirects to.
  if (url.username || url.password) return 'URLs with user name or password are not downloaded';
  return 'asset';
}

/** Collects the asset URLs of XML (text of leaf elements, attribute values) or JSON (string values). */
export function findAssetUrls(data: Buffer, dataType: 'xml' | 'json', max: number): FoundUrls {
  const out: FoundUrls = { urls: [], dropped: 0, refused: [] };
  // Most data holds no URL at all: skip parsing it.
  if (data.indexOf('://') < 0) return out;
  const seen = new Set<string>();
  const consider = (raw: string, name: string) => {
    const value = raw.trim();
    if (seen.has(value)) return;
    const verdict = assetUrlCheck(value, name);
    if (verdict === null) return;
    seen.add(value);
    if (verdict !== 'asset') out.refused.push({ url: value, reason: verdict });
    else if (out.urls.length < max) out.urls.push(value);
    else out.dropped++;
  };
  if (dataType === 'json') walkJson(data, consider);
  else walkXml(data, consider);
  return out;
}

const localName = (qname: string) => qname.slice(qname.indexOf(':') + 1);

function walkXml(data: Buffer, consider: (value: string, name: string) => void): void {
  const parser = new SaxesParser({ xmlns: false });
  // Per open element: its text so far, or null once it has a child element (not a leaf).
  const stack: (string | null)[] = [];
  let failed = false;
  parser.on('opentag', (tag) => {
    if (stack.length > 0) stack[stack.length - 1] = null;
    stack.push('');
    for (const [name, value] of Object.entries(tag.attributes)) consider(value as string, localName(name));
  });
  const addText = (t: string) => {
    const top = stack.length - 1;
    if (top < 0 || stack[top] === null) return;
    // Longer text is no URL; null stops collecting it.
    stack[top] = stack[top]!.length + t.length > MAX_URL_LENGTH + 256 ? null : stack[top] + t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', (tag) => {
    const text = stack.pop();
    if (text) consider(text, localName(tag.name));
  });
  // The data passed the intake check or came from a stylesheet; if not, keep what was found.
  parser.on('error', () => {
    failed = true;
  });
  const text = data.toString('utf8');
  const chunk = 1 << 20;
  for (let i = 0; i < text.length && !failed; i += chunk) parser.write(text.slice(i, i + chunk));
  if (!failed) parser.close();
}

function walkJson(data: Buffer, consider: (value: string, name: string) => void): void {
  let root: unknown;
  try {
    root = JSON.parse(data.toString('utf8'));
  } catch {
    return;
  }
  // Iterative, so deeply nested JSON cannot overflow the stack.
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, name] = stack.pop()!;
    if (typeof value === 'string') consider(value, name);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], name]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], entries[i]![0]]);
    }
  }
}
