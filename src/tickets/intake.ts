import type { Principal } from '../auth/index.js';
import { lookupRepositoryFile, resolveStepConfig } from '../config/resolve.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { builtinTemplateNames } from '../steps/render-pdf/builtin-templates.js';
import { tickets, type TicketRow } from '../store/index.js';
import { assertProjectExists } from '../tenants/index.js';
import { readZip, zipLimits } from '../zip/index.js';
import { newTicketId } from './ids.js';
import { checkUrlList, parseCustom, type RenderQuery, type TicketParams } from './params.js';
import { assertJson, assertSafeXml } from './xml-check.js';

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

export interface RenderRequest {
  tenant: string;
  project: string;
  target: 'pdf' | 'pptx';
  query: RenderQuery;
  contentType: string;
  body: Buffer;
}

const DEFAULT_INPUT_BUFFER = 65536;
const DEFAULT_KEEP_INPUT_SECONDS = 86400;

/**
 * Validates a render request and stores its ticket durably. Everything that can be checked
 * up front is (parameters, body, stylesheet and template names), so a client learns about a
 * bad request at once rather than from a failed ticket.
 */
export async function intake(ctx: Context, principal: Principal, req: RenderRequest): Promise<TicketRow[]> {
  await assertProjectExists(ctx, req.tenant, req.project);
  const inputType = inputTypeOf(req.contentType);
  if (req.body.length === 0) throw new AppError('bad_request', 'request body is empty', { details: [{ field: 'body', message: 'empty' }] });

  const profiles = req.query.profile ? req.query.profile.split(',') : [];
  const custom = parseCustom(req.query);
  const restapi = await resolveStepConfig(ctx, 'restapi', req.tenant, req.project, profiles);
  const render = await resolveStepConfig(ctx, req.target === 'pdf' ? 'renderpdf' : 'renderpptx', req.tenant, req.project);

  if (req.query.convert !== undefined || restapi.convert != null) {
    throw new AppError('bad_request', 'convert: image conversion is not available in this version', { details: [{ field: 'convert', message: 'not available' }] });
  }

  const { dataFile, resources } = await checkBody(ctx, inputType, req.body);

  const transform = req.query.transform ?? (restapi.transform as string | undefined);
  const transformBefore = req.query.transformBefore ?? (restapi.transformBefore as string | undefined);
  for (const [field, name] of [['transformBefore', transformBefore], ['transform', transform]] as const) {
    if (name !== undefined && !(await lookupRepositoryFile(ctx, req.tenant, req.project, `transform/xslt/${name}`))) {
      throw new AppError('bad_request', `${field}: stylesheet ${name} not found in transform/xslt/ (project, tenant or global)`, { details: [{ field, message: 'stylesheet not found' }] });
    }
  }
  const documentTemplate = req.query.documentTemplate ?? (restapi.documentTemplate as string | undefined) ?? (render.documentTemplate as string | undefined) ?? 'default';
  if (!builtinTemplateNames.includes(documentTemplate) && !(await lookupRepositoryFile(ctx, req.tenant, req.project, `master-documents/${documentTemplate}.typ`))) {
    throw new AppError('bad_request', `documentTemplate: template ${documentTemplate} not found in master-documents/ (project, tenant, global or built-in)`, {
      details: [{ field: 'documentTemplate', message: 'template not found' }],
    });
  }

  const params: TicketParams = {
    ...optional('callback', checkUrlList('callback', req.query.callback ?? (restapi.callbackUrl as string | undefined))),
    ...optional('error', checkUrlList('error', req.query.error ?? (restapi.errorUrl as string | undefined))),
    ...optional('upload', checkUrlList('upload', req.query.upload ?? (restapi.uploadUrl as string | undefined))),
    ...optional('transform', transform),
    ...optional('transformBefore', transformBefore),
    documentTemplate,
    profiles,
    custom,
    dataFile,
    ...(resources.length > 0 ? { resources } : {}),
  };

  const now = ctx.now();
  const id = newTicketId(now);
  const inputBufferSize = (restapi.inputBufferSize as number | undefined) ?? DEFAULT_INPUT_BUFFER;
  const keepInputSeconds = (restapi.keepInputForSeconds as number | undefined) ?? DEFAULT_KEEP_INPUT_SECONDS;
  const inline = inputType !== 'zip' && req.body.length <= inputBufferSize;
  let inputKey: string | null = null;
  if (!inline) {
    inputKey = `jobs/${req.tenant}/${req.project}/${id}/input`;
    await ctx.blobs.put(inputKey, req.body);
  }
  const row: TicketRow = {
    id,
    tenant: req.tenant,
    project: req.project,
    user_name: principal.user,
    target: req.target,
    status: null,
    next: req.target === 'pdf' ? 'renderpdf' : 'renderpptx',
    complete: 0,
    run_after: now,
    priority: 0,
    lease_owner: null,
    lease_until: null,
    attempt: 0,
    redeliveries: 0,
    messages: '[]',
    error_code: null,
    error_message: null,
    params: JSON.stringify(params),
    input_type: inputType,
    input_inline: inline ? req.body : null,
    input_key: inputKey,
    input_size: req.body.length,
    foreign_key: req.query.foreignKey ?? null,
    processing_msecs: 0,
    processing_pages: 0,
    group_id: null,
    part_index: null,
    output_name: null,
    shipped: 0,
    created: now,
    updated: now,
    completed: null,
    keep_input_until: now + keepInputSeconds * 1000,
  };
  try {
    await tickets.insertTickets(ctx.db.kysely, [row]);
  } catch (err) {
    if (inputKey) await ctx.blobs.delete(inputKey);
    throw err;
  }
  await ctx.notifier.publish('new').catch((err: unknown) => ctx.logger.warn({ err }, 'could not announce new ticket; workers will poll'));
  return [row];
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Validates the body; for a ZIP, finds the data file and lists the resources. */
async function checkBody(ctx: Context, type: InputType, body: Buffer): Promise<{ dataFile: TicketParams['dataFile']; resources: string[] }> {
  if (type === 'xml') {
    assertSafeXml(body);
    return { dataFile: 'data.xml', resources: [] };
  }
  if (type === 'json') {
    assertJson(body);
    return { dataFile: 'data.json', resources: [] };
  }
  const entries = await readZip(body, zipLimits(ctx.settings));
  const files = entries.filter((e) => e.kind === 'file');
  const xml = files.find((e) => e.name === 'data.xml');
  const json = files.find((e) => e.name === 'data.json');
  if (!xml && !json) throw new AppError('bad_request', 'ZIP input must contain data.xml or data.json in its root', { details: [{ field: 'body', message: 'no data.xml or data.json' }] });
  if (xml) assertSafeXml(xml.data, 'data.xml in the ZIP');
  else assertJson(json!.data, 'data.json in the ZIP');
  const dataFile = xml ? 'data.xml' : 'data.json';
  return { dataFile, resources: files.map((f) => f.name).filter((n) => n !== dataFile) };
}
