import type { Principal } from '../auth/index.js';
import { lookupRepositoryFile, readRepositoryBlob, resolveStepConfig } from '../repository/lookup.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { builtinTemplateNames } from '../repository/builtin-templates.js';
import { TransformError } from '../engines/xslt/index.js';
import { tickets, type TicketRow } from '../store/index.js';
import { assertProjectExists } from '../tenants/index.js';
import { scanZip, zipGate, zipLimits } from '../zip/index.js';
import { noFanoutData, splitXml, type FanoutOptions } from './fanout.js';
import { newTicketId } from './ids.js';
import { resolveConvert } from './convert-param.js';
import { checkUrlList, parseCustom, type RenderQuery, type TicketParams } from './params.js';
import { checkQuota, quotaPeriod } from './quota.js';
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
  /**
   * Called once the output type is known, before anything is stored (sync mode checks Accept):
   * the media type of a conversion, or undefined for the target's own document type.
   */
  checkOutput?: (convertMediaType: string | undefined) => void;
}

/** What intake stored: the tickets to render, and the aggregate waiting for them (if any). */
export interface IntakeResult {
  tickets: string[];
  aggregate: string | null;
}

const DEFAULT_INPUT_BUFFER = 65536;
const DEFAULT_KEEP_INPUT_SECONDS = 86400;
/** The window of a project's request rate for fair priority. */
const PRIORITY_WINDOW_MS = 60_000;

/**
 * Validates a render request and stores its tickets durably. Everything that can be checked
 * up front is (parameters, body, stylesheet and template names, quota), so a client learns
 * about a bad request at once rather than from a failed ticket. With fanout, the input is
 * split while it is stored, part by part, in one transaction.
 */
export async function intake(ctx: Context, principal: Principal, req: RenderRequest): Promise<IntakeResult> {
  await assertProjectExists(ctx, req.tenant, req.project);
  const inputType = inputTypeOf(req.contentType);
  if (req.body.length === 0) throw new AppError('bad_request', 'request body is empty', { details: [{ field: 'body', message: 'empty' }] });

  const profiles = req.query.profile ? req.query.profile.split(',') : [];
  const custom = parseCustom(req.query);
  const restapi = await resolveStepConfig(ctx, 'restapi', req.tenant, req.project, profiles);
  const render = await resolveStepConfig(ctx, req.target === 'pdf' ? 'renderpdf' : 'renderpptx', req.tenant, req.project);

  const convert = resolveConvert(req.target, req.query.convert, restapi.convert);
  req.checkOutput?.(convert?.mediaType);
  const { dataFile, resources, data } = await checkBody(ctx, inputType, req.body);

  const transform = req.query.transform ?? restapi.transform;
  const transformBefore = req.query.transformBefore ?? restapi.transformBefore;
  for (const [field, name] of [['transformBefore', transformBefore], ['transform', transform]] as const) {
    if (name !== undefined && !(await lookupRepositoryFile(ctx, req.tenant, req.project, `transform/xslt/${name}`))) {
      throw new AppError('bad_request', `${field}: stylesheet ${name} not found in transform/xslt/ (project, tenant or global)`, { details: [{ field, message: 'stylesheet not found' }] });
    }
  }
  const documentTemplate = req.query.documentTemplate ?? restapi.documentTemplate ?? render.documentTemplate ?? 'default';
  await assertTemplateExists(ctx, req, documentTemplate);
  if (req.target === 'pptx' && dataFile === 'data.json' && !transform) {
    throw new AppError('bad_request', 'renderpptx reads XML in the presentation format; JSON input needs a transform', { details: [{ field: 'transform', message: 'required for JSON input' }] });
  }

  const fanoutConfig = restapi.fanout ?? {};
  const aggregateConfig = restapi.aggregate ?? {};
  const fanout = fanoutConfig.enabled === true;
  if (fanout && aggregateConfig.enabled && req.target === 'pptx') {
    throw new AppError('bad_request', 'aggregate is available for renderpdf only; decks of fanout parts are not merged (disable aggregate.enabled for this project or profile)', {
      details: [{ field: 'aggregate.enabled', message: 'not available for renderpptx' }],
    });
  }
  const quota = restapi.quota;
  await checkQuota(ctx, req.tenant, req.project, quota, 1);

  const params: TicketParams = {
    ...optional('callback', checkUrlList('callback', req.query.callback ?? restapi.callbackUrl)),
    ...optional('error', checkUrlList('error', req.query.error ?? restapi.errorUrl)),
    ...optional('upload', checkUrlList('upload', req.query.upload ?? restapi.uploadUrl)),
    ...optional('transform', transform),
    ...optional('convert', convert?.source),
    // With fanout, transformBefore runs here, before the split; otherwise in the render step.
    ...optional('transformBefore', fanout ? undefined : transformBefore),
    documentTemplate,
    profiles,
    custom,
    dataFile,
    ...(resources.length > 0 ? { resources } : {}),
  };

  const now = ctx.now();
  const inputBufferSize = restapi.inputBufferSize ?? DEFAULT_INPUT_BUFFER;
  const keepInputUntil = now + (restapi.keepInputForSeconds ?? DEFAULT_KEEP_INPUT_SECONDS) * 1000;
  const basePriority = await tickets.countCreatedSince(ctx.db.kysely, req.tenant, req.project, now - PRIORITY_WINDOW_MS);
  const maxParallel = restapi.maxParallelRenders ?? null;
  const row = (id: string, input: { type: string; inline: Buffer | null; key: string | null; size: number }, extra: Partial<TicketRow> = {}): TicketRow => ({
    id,
    tenant: req.tenant,
    project: req.project,
    user_name: principal.user,
    target: req.target,
    status: null,
    next: req.target === 'pdf' ? 'renderpdf' : 'renderpptx',
    complete: 0,
    run_after: now,
    priority: basePriority,
    lease_owner: null,
    lease_until: null,
    attempt: 0,
    redeliveries: 0,
    messages: '[]',
    error_code: null,
    error_message: null,
    params: JSON.stringify(params),
    input_type: input.type,
    input_inline: input.inline,
    input_key: input.key,
    input_size: input.size,
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
    keep_input_until: keepInputUntil,
    aggregate_id: null,
    max_parallel: maxParallel,
    ...extra,
  });
  const written: string[] = [];
  const storeInput = async (key: string, body: Buffer) => {
    await ctx.blobs.put(key, body);
    written.push(key);
  };
  const blobKey = (id: string) => `jobs/${req.tenant}/${req.project}/${id}/input`;

  try {
    if (!fanout) {
      const id = newTicketId(now);
      const inline = inputType !== 'zip' && req.body.length <= inputBufferSize;
      if (!inline) await storeInput(blobKey(id), req.body);
      const one = row(id, { type: inputType, inline: inline ? req.body : null, key: inline ? null : blobKey(id), size: req.body.length });
      await tickets.insertTicketsCounted(ctx.db.kysely, [one], quotaPeriod(now));
      await announce(ctx);
      return { tickets: [id], aggregate: null };
    }

    // Fanout: split the (transformed) XML and store each part as a ticket of its own.
    const options: FanoutOptions = { rootPath: fanoutConfig.rootPath ?? '/data/item', itemType: fanoutConfig.itemType ?? 'document', itemAttribute: fanoutConfig.itemAttribute ?? 'type' };
    let xml = data;
    if (transformBefore) xml = await runTransformBefore(ctx, req.tenant, req.project, transformBefore, data, dataFile === 'data.json' ? 'json' : 'xml', params.custom);
    else if (dataFile === 'data.json') {
      throw new AppError('bad_request', 'fanout needs XML: JSON input must be turned into XML by a transformBefore stylesheet', { details: [{ field: 'transformBefore', message: 'required for JSON input with fanout' }] });
    }
    const groupId = newTicketId(now);
    let zipKey: string | null = null;
    if (inputType === 'zip') {
      zipKey = `jobs/${req.tenant}/${req.project}/${groupId}/input.zip`;
      await storeInput(zipKey, req.body);
    }
    const aggregateId = aggregateConfig.enabled ? newTicketId(now) : null;
    const ids: string[] = [];
    // Read before the transaction: on SQLite the transaction holds the only connection.
    const period = quotaPeriod(now);
    const used = { project: await tickets.quotaUsage(ctx.db.kysely, req.tenant, period, req.project), tenant: await tickets.quotaUsage(ctx.db.kysely, req.tenant, period) };
    const overQuota = (n: number): AppError | null => {
      if (quota?.ticketsPerMonth !== undefined && used.project + n > quota.ticketsPerMonth) return new AppError('quota_exceeded', `rendering quota exceeded: this fanout makes ${n} tickets; project ${req.tenant}/${req.project} has used ${used.project} of ${quota.ticketsPerMonth} in ${period}`);
      if (quota?.tenantTicketsPerMonth !== undefined && used.tenant + n > quota.tenantTicketsPerMonth) return new AppError('quota_exceeded', `rendering quota exceeded: this fanout makes ${n} tickets; tenant ${req.tenant} has used ${used.tenant} of ${quota.tenantTicketsPerMonth} in ${period}`);
      return null;
    };
    async function* partRows(): AsyncGenerator<TicketRow[]> {
      for await (const parts of splitXml(xml, options)) {
        const rows: TicketRow[] = [];
        for (const part of parts) {
          const id = newTicketId(now);
          const index = ids.length;
          ids.push(id);
          // A ZIP part keeps its XML inline and shares the ZIP (its resources) with its siblings.
          const inline = zipKey !== null || part.xml.length <= inputBufferSize;
          if (!inline) await storeInput(blobKey(id), part.xml);
          const partParams: TicketParams = { ...params, label: part.label, dataFile: 'data.xml' };
          rows.push(
            row(
              id,
              { type: zipKey ? 'zip-part' : 'xml', inline: inline ? part.xml : null, key: zipKey ?? (inline ? null : blobKey(id)), size: part.xml.length },
              // Parts keep their input order among themselves and behind other projects' work.
              { params: JSON.stringify(partParams), priority: basePriority + index, group_id: groupId, part_index: index, aggregate_id: aggregateId },
            ),
          );
        }
        const refusal = overQuota(ids.length);
        if (refusal) throw refusal;
        yield rows;
      }
    }
    const deadline = now + (aggregateConfig.timeoutInSeconds ?? 1800) * 1000;
    const aggregateRow = aggregateId
      ? row(
          aggregateId,
          { type: 'aggregate', inline: null, key: null, size: 0 },
          {
            target: 'aggregate',
            next: 'aggregate',
            group_id: groupId,
            // Waits for its parts: made due when the last part finishes, or at the timeout.
            run_after: deadline,
            priority: basePriority,
            params: JSON.stringify({ ...params, outputTarget: req.target, deadline }),
          },
        )
      : null;
    const count = await tickets.insertTicketStream(ctx.db.kysely, partRows(), aggregateRow, quotaPeriod(now));
    if (count === 0) throw noFanoutData(options);
    await announce(ctx);
    return { tickets: ids, aggregate: aggregateId };
  } catch (err) {
    await Promise.all(written.map((k) => ctx.blobs.delete(k)));
    throw err;
  }
}

async function announce(ctx: Context): Promise<void> {
  await ctx.notifier.publish('new').catch((err: unknown) => ctx.logger.warn({ err }, 'could not announce new tickets; workers will poll'));
}

async function runTransformBefore(ctx: Context, tenant: string, project: string, name: string, data: Buffer, inputType: 'xml' | 'json', custom: Record<string, string>): Promise<Buffer> {
  const ref = await lookupRepositoryFile(ctx, tenant, project, `transform/xslt/${name}`);
  if (!ref) throw new AppError('bad_request', `transformBefore: stylesheet ${name} not found`, { details: [{ field: 'transformBefore', message: 'stylesheet not found' }] });
  try {
    const out = await ctx.transformer.transform({ stylesheet: await readRepositoryBlob(ctx, ref), stylesheetName: name, input: data, inputType, params: { ...custom, tenant, project } });
    assertSafeXml(out, `output of transformBefore ${name}`);
    return out;
  } catch (err) {
    if (err instanceof TransformError) throw new AppError('bad_request', `transformBefore ${name} failed: ${err.message}`, { details: [{ field: 'transformBefore', message: err.message }] });
    throw err;
  }
}

/** The master exists: `master-documents/<name>.typ` for PDF, `powerpoint/<name>.pptx` for decks (project, tenant, global, built-in). */
async function assertTemplateExists(ctx: Context, req: RenderRequest, name: string): Promise<void> {
  const pdf = req.target === 'pdf';
  const folder = pdf ? 'master-documents' : 'powerpoint';
  const builtin = pdf ? builtinTemplateNames.includes(name) : name === 'default';
  if (builtin || (await lookupRepositoryFile(ctx, req.tenant, req.project, `${folder}/${name}.${pdf ? 'typ' : 'pptx'}`))) return;
  throw new AppError('bad_request', `documentTemplate: template ${name} not found in ${folder}/ (project, tenant, global or built-in)`, {
    details: [{ field: 'documentTemplate', message: 'template not found' }],
  });
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Validates the body; for a ZIP, finds the data file and lists the resources. */
async function checkBody(ctx: Context, type: InputType, body: Buffer): Promise<{ dataFile: TicketParams['dataFile']; resources: string[]; data: Buffer }> {
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
