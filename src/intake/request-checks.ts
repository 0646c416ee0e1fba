import { lookupRepositoryFile } from '../repository/lookup.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { builtinTemplateNames } from '../repository/builtin-templates.js';
import type { TicketParams } from '../tickets/params.js';
import { assertJson, assertSafeXml } from '../xml/index.js';
import { scanZip, zipGate, zipLimits } from '../zip/index.js';
import { masterPathOf, targets } from '../steps/targets.js';

export type InputType = 'xml' | 'json' | 'zip';

const mediaTypes: Record<string, InputType> = {
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
  'application/zip': 'zip',
  'application/x-zip-compressed': 'zip',
};

/** Maps a request Content-Type to an input type; 415 for anything else. */
export function inputTypeOf(contentType: string): InputType {
  const type = mediaTypes[contentType];
  if (!type) throw new AppError('unsupported_media_type', `Content-Type "${contentType || '(none)'}" is not accepted; send application/xml, application/json or application/zip`);
  return type;
}

/** 400 for an empty body: there is nothing to render, and no step could say so more clearly. */
export function assertBodyPresent(body: Buffer): void {
  if (body.length === 0) throw new AppError('bad_request', 'request body is empty', { details: [{ field: 'body', message: 'empty' }] });
}

/** A checked body: which data file the template reads, the ZIP's other files, and the data itself. */
export interface CheckedBody {
  dataFile: TicketParams['dataFile'];
  resources: string[];
  data: Buffer;
}

/** Validates the body; for a ZIP, finds the data file and lists the resources. */
export async function checkBody(ctx: Context, type: InputType, body: Buffer): Promise<CheckedBody> {
  if (type === 'xml') {
    assertSafeXml(body);
    return { dataFile: 'data.xml', resources: [], data: body };
  }
  if (type === 'json') {
    assertJson(body);
    return { dataFile: 'data.json', resources: [], data: body };
  }
  // Resources are inflated to check them and dropped; only the data file is held (at most a body's size).
  const isData = (name: string) => name === 'data.xml' || name === 'data.json';
  const scan = await zipGate(ctx.settings).run(() => scanZip(body, zipLimits(ctx.settings), isData, ctx.settings.bodyLimit));
  const xml = scan.kept.get('data.xml');
  const json = scan.kept.get('data.json');
  if (!xml && !json) throw new AppError('bad_request', 'ZIP input must contain data.xml or data.json in its root', { details: [{ field: 'body', message: 'no data.xml or data.json' }] });
  if (xml) assertSafeXml(xml, 'data.xml in the ZIP');
  else assertJson(json!, 'data.json in the ZIP');
  const dataFile = xml ? 'data.xml' : 'data.json';
  return { dataFile, resources: scan.files.map((f) => f.name).filter((n) => n !== dataFile), data: (xml ?? json)! };
}

/** Each named stylesheet exists in `transform/xslt/` (project, tenant or global), checked in the order given. */
export async function assertStylesheetsExist(ctx: Context, tenant: string, project: string, names: ReadonlyArray<readonly [field: string, name: string | undefined]>): Promise<void> {
  for (const [field, name] of names) {
    if (name !== undefined && !(await lookupRepositoryFile(ctx, tenant, project, `transform/xslt/${name}`))) {
      throw new AppError('bad_request', `${field}: stylesheet ${name} not found in transform/xslt/ (project, tenant or global)`, { details: [{ field, message: 'stylesheet not found' }] });
    }
  }
}

/** The master exists: `master-documents/<name>.typ` for PDF, `powerpoint/<name>.pptx` for decks (project, tenant, global, built-in). */
export async function assertTemplateExists(ctx: Context, where: { tenant: string; project: string; target: 'pdf' | 'pptx' }, name: string): Promise<void> {
  const target = targets[where.target];
  const builtin = where.target === 'pdf' ? builtinTemplateNames.includes(name) : name === 'default';
  if (builtin || (await lookupRepositoryFile(ctx, where.tenant, where.project, masterPathOf(target, name)))) return;
  throw new AppError('bad_request', `documentTemplate: template ${name} not found in ${target.masters.folder}/ (project, tenant, global or built-in)`, {
    details: [{ field: 'documentTemplate', message: 'template not found' }],
  });
}

/** renderpptx reads the presentation XML format, so JSON can only reach it through a transform. */
export function assertPptxInput(target: 'pdf' | 'pptx', dataFile: TicketParams['dataFile'], transform: string | undefined): void {
  if (target === 'pptx' && dataFile === 'data.json' && !transform) {
    throw new AppError('bad_request', 'renderpptx reads XML in the presentation format; JSON input needs a transform', { details: [{ field: 'transform', message: 'required for JSON input' }] });
  }
}
