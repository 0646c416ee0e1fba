import type { Principal } from '../auth/index.js';
import { resolveStepConfig } from '../repository/lookup.js';
import type { Context, TicketLease } from '../context.js';
import { assertProjectExists } from '../tenants/index.js';
import { inputKey } from '../tickets/blob-keys.js';
import { newTicketId } from '../tickets/ids.js';
import { parseCustom } from '../tickets/params.js';
import { resolveConvert } from './convert-param.js';
import { assertAggregateAvailable, storeFanout } from './fanout.js';
import { InputBlobs } from './input-blobs.js';
import { checkQuota, quotaPeriod } from './quota.js';
import { assertBodyPresent, assertPptxInput, assertStylesheetsExist, assertTemplateExists, checkBody, inputTypeOf, type InputType } from './request-checks.js';
import { rowMaker, ticketParams, type MakeRow } from './ticket-rows.js';
import type { IntakeResult, RenderRequest } from './types.js';
import { targets } from '../steps/targets.js';

const DEFAULT_INPUT_BUFFER = 65536;
const DEFAULT_KEEP_INPUT_SECONDS = 86400;

/**
 * Validates a render request and stores its tickets durably. Everything that can be checked
 * up front is (parameters, body, stylesheet and template names, quota), so a client learns
 * about a bad request at once rather than from a failed ticket. The checks run in a fixed
 * order, which decides the error a request with several faults gets.
 */
export async function intake(ctx: Context, principal: Principal, req: RenderRequest): Promise<IntakeResult> {
  await assertProjectExists(ctx, req.tenant, req.project);
  const inputType = inputTypeOf(req.contentType);
  assertBodyPresent(req.body);

  const profiles = req.query.profile ? req.query.profile.split(',') : [];
  const custom = parseCustom(req.query);
  const restapi = await resolveStepConfig(ctx, 'restapi', req.tenant, req.project, profiles);
  const render = await resolveStepConfig(ctx, targets[req.target].step, req.tenant, req.project);

  const convert = resolveConvert(req.target, req.query.convert, restapi.convert);
  req.checkOutput?.(convert?.mediaType);
  const body = await checkBody(ctx, inputType, req.body);

  const transform = req.query.transform ?? restapi.transform;
  const transformBefore = req.query.transformBefore ?? restapi.transformBefore;
  await assertStylesheetsExist(ctx, req.tenant, req.project, [
    ['transformBefore', transformBefore],
    ['transform', transform],
  ]);
  const documentTemplate = req.query.documentTemplate ?? restapi.documentTemplate ?? render.documentTemplate ?? 'default';
  await assertTemplateExists(ctx, req, documentTemplate);
  assertPptxInput(req.target, body.dataFile, transform);

  const fanout = restapi.fanout?.enabled === true;
  if (fanout) assertAggregateAvailable(restapi, req.target);
  await checkQuota(ctx, req.tenant, req.project, restapi.quota, 1);
  const params = ticketParams({ query: req.query, restapi, transform, transformBefore, convert: convert?.source, documentTemplate, profiles, custom, body, fanout, awaited: req.awaited === true });

  const now = ctx.now();
  const inputBufferSize = restapi.inputBufferSize ?? DEFAULT_INPUT_BUFFER;
  const keepInputUntil = now + (restapi.keepInputForSeconds ?? DEFAULT_KEEP_INPUT_SECONDS) * 1000;
  const priority = await ctx.recentTickets.count(req.tenant, req.project);
  const makeRow = rowMaker({
    tenant: req.tenant,
    project: req.project,
    user: principal.user,
    target: req.target,
    params,
    foreignKey: req.query.foreignKey ?? null,
    now,
    priority,
    keepInputUntil,
    maxParallel: restapi.maxParallelRenders ?? null,
  });
  const blobs = new InputBlobs(ctx);
  const { tenant, project, target } = req;
  try {
    if (fanout) {
      const stored = await storeFanout(ctx, { tenant, project, target, inputType, body: req.body, checked: body, transformBefore, params, restapi, now, inputBufferSize, priority, makeRow, blobs });
      ctx.recentTickets.stored(tenant, project, stored.tickets.length + (stored.aggregate ? 1 : 0));
      await announce(ctx);
      return stored;
    }
    // A project with a parallel limit goes through the claim, which counts its running tickets.
    const lease = restapi.maxParallelRenders === undefined ? (ctx.localWorker.current?.reserve() ?? null) : null;
    const stored = await storeOne(ctx, { tenant, project, inputType, body: req.body, now, inputBufferSize, makeRow, blobs, lease });
    ctx.recentTickets.stored(tenant, project, 1);
    if (!lease) await announce(ctx);
    return stored;
  } catch (err) {
    await blobs.discard();
    throw err;
  }
}

/** Stores the one ticket of a request without fanout; its input inline when small (a ZIP never is). */
async function storeOne(
  ctx: Context,
  job: { tenant: string; project: string; body: Buffer; inputType: InputType; now: number; inputBufferSize: number; makeRow: MakeRow; blobs: InputBlobs; lease: TicketLease | null },
): Promise<IntakeResult> {
  const { lease } = job;
  try {
    const id = newTicketId(job.now);
    const key = inputKey({ tenant: job.tenant, project: job.project, id });
    const inline = job.inputType !== 'zip' && job.body.length <= job.inputBufferSize;
    // Handed to the local worker: stored as its first claim would leave it (leased, attempt 1).
    const leased = lease ? { lease_owner: lease.owner, lease_until: lease.until, attempt: 1 } : {};
    const row = job.makeRow(id, { type: job.inputType, inline: inline ? job.body : null, key: inline ? null : key, size: job.body.length }, leased);
    // The blob before the row that points at it: a committed ticket always has its input.
    const stored = (async () => {
      // A leased ticket's step sends its render the job first: a small input is written on this
      // thread (FileBlobStore), which would otherwise hold the job back by that write.
      if (lease && !inline) await new Promise<void>((resolve) => setImmediate(resolve));
      if (!inline) {
        await job.blobs.put(key, job.body);
        // Kept before the row exists, so the step that claims it finds it; a ticket whose row
        // never commits leaves its body to the holder's time limit.
        if (!lease) ctx.localWorker.current?.keepInput(key, job.body);
      }
      await ctx.ticketInserts.insert([row], quotaPeriod(job.now), lease ? job.now : undefined);
    })();
    // The local worker renders from the body in hand meanwhile: storing is file system and
    // database round trips (over a millisecond) that need not delay a synchronous answer.
    lease?.start(row, { stored, input: job.body });
    await stored;
    return { tickets: [id], aggregate: null };
  } catch (err) {
    lease?.cancel();
    throw err;
  }
}

/** Wakes idle workers at once; if the event is lost they find the tickets on their next poll. */
async function announce(ctx: Context): Promise<void> {
  await ctx.notifier.publish('new').catch((err: unknown) => ctx.logger.warn({ err }, 'could not announce new tickets; workers will poll'));
}
