import { AppError, badRequest } from '../errors.js';
import { assertJson, assertSafeXml } from '../xml/index.js';

/** Bounds of one preview request; each one answers 413 when passed. */
export const previewLimits = {
  /** Typst source of the template. */
  templateBytes: 1024 * 1024,
  /** The data (XML or JSON). */
  dataBytes: 10 * 1024 * 1024,
  /** Number of resource files. */
  resourceCount: 200,
  /** All resource files together, decoded. */
  resourceBytes: 20 * 1024 * 1024,
  /** The whole JSON request (base64 makes resources a third larger). */
  bodyBytes: 32 * 1024 * 1024,
} as const;

/** The preview request body as the route schema admits it. */
export interface PreviewBody {
  template?: string;
  documentTemplate?: string;
  data?: string;
  dataType?: 'xml' | 'json';
  resources?: Record<string, string>;
  format?: 'svg' | 'png';
  resolution?: number;
}

/** A checked preview request: bytes, decoded resources and defaults applied. */
export interface PreviewInput {
  template: Buffer | null;
  documentTemplate: string | null;
  data: Buffer;
  dataType: 'xml' | 'json';
  resources: { name: string; data: Buffer }[];
  format: 'svg' | 'png';
  resolution: number;
}

export const DEFAULT_PREVIEW_RESOLUTION = 96;

const tooLarge = (what: string, limit: number, unit = 'bytes'): AppError =>
  new AppError('payload_too_large', `${what} is over the preview limit of ${limit} ${unit}`, { details: [{ field: what.split(' ')[0]!, message: `over ${limit} ${unit}` }] });

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A resource path as a job sees it (`images/logo.png` → `/images/logo.png`): relative, no `..`. */
function resourceName(path: string): string {
  const name = path.replace(/^\.\//, '');
  const segments = name.split('/');
  if (name.length === 0 || name.length > 512 || /[\\\0]/.test(name) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw badRequest(`resources: "${path.slice(0, 100)}" is not a relative path without empty, . or .. segments`, `resources.${path.slice(0, 100)}`);
  }
  return name;
}

/** Checks sizes (413), resource paths and encodings, and the data's syntax (400, as intake does). */
export function checkPreviewBody(body: PreviewBody): PreviewInput {
  const template = body.template === undefined ? null : Buffer.from(body.template, 'utf8');
  if (template && template.length > previewLimits.templateBytes) throw tooLarge('template', previewLimits.templateBytes);
  const dataType = body.dataType ?? 'xml';
  const data = Buffer.from(body.data ?? (dataType === 'xml' ? '<data/>' : '{}'), 'utf8');
  if (data.length > previewLimits.dataBytes) throw tooLarge('data', previewLimits.dataBytes);

  const entries = Object.entries(body.resources ?? {});
  if (entries.length > previewLimits.resourceCount) throw tooLarge('resources count', previewLimits.resourceCount, 'files');
  let total = 0;
  const resources = entries.map(([path, encoded]) => {
    const name = resourceName(path);
    const compact = encoded.replace(/\s+/g, '');
    total += Math.floor((compact.length * 3) / 4);
    if (total > previewLimits.resourceBytes) throw tooLarge('resources total', previewLimits.resourceBytes);
    if (!base64.test(compact) || compact.length % 4 === 1) throw badRequest(`resources: "${name}" is not base64`, `resources.${name}`);
    return { name, data: Buffer.from(compact, 'base64') };
  });

  const what = dataType === 'xml' ? 'data (XML)' : 'data (JSON)';
  try {
    if (dataType === 'xml') assertSafeXml(data, what);
    else assertJson(data, what);
  } catch (err) {
    // The same message as intake, naming the field of this request.
    if (err instanceof AppError) throw new AppError(err.code, err.publicMessage, { details: [{ field: 'data', message: err.publicMessage }] });
    throw err;
  }
  return {
    template,
    documentTemplate: body.documentTemplate ?? null,
    data,
    dataType,
    resources,
    format: body.format ?? 'svg',
    resolution: body.resolution ?? DEFAULT_PREVIEW_RESOLUTION,
  };
}
