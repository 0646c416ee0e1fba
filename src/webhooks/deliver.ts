import type { StepConfigs } from '../repository/step-configs.js';
import { recordUsage } from '../stats/index.js';
import type { Context } from '../context.js';
import { artifactStream, tickets, type ArtifactRow, type TicketRow } from '../store/index.js';
import { connectionsOf, matchConnection, type Connection, type WebhookStep } from './connections.js';
import { assetFields } from './dam/asset-fields.js';
import { bynderUpload } from './dam/bynder.js';
import { placeholderValues, type DeliveryParams, type WebhookEvent } from './event.js';
import { exportParams } from './export-params.js';
import type { Exchange } from './http.js';
import { webhookErrorCodes, type DeliveryFailure } from './outcome.js';
import { escapes, fill } from './placeholders.js';
import { limitsOf, notification, uploadShape } from './requests.js';
import { checked, isDeliveryFailure, sendAuthorized } from './send.js';
import { DeliveryConfigError, WebhookSession } from './session.js';
import { signatureHeaders, signingKey, webhookId } from './signature.js';
import { loadState, saveState } from './state.js';

/** What a webhook step hands over: the claimed ticket, the parameters a delivery reads and the step's configuration. */
export interface DeliveryInput {
  readonly ctx: Context;
  readonly ticket: TicketRow;
  readonly params: DeliveryParams;
  /** The step's own config.ion (connections) and restapi's (webhookSecret), resolved once per ticket step. */
  readonly config: StepConfigs;
}

/** How a run ended, in the terms of a step outcome (webhook steps store no artifacts). */
export type DeliveryOutcome =
  | { kind: 'succeeded'; messages: string[]; shipped?: true }
  | { kind: 'failed'; errorCode: string; errorMessage: string; messages: string[]; retryAfterMs?: number };

/** One URL of the step's list, resolved. */
interface Target {
  index: number;
  url: string;
  conn: Connection | undefined;
  ev: WebhookEvent;
  values: Record<string, string>;
}

/** What a run shares across its URLs. */
interface Run {
  session: WebhookSession;
  input: DeliveryInput;
  /** Standard Webhooks key from restapi `webhookSecret`; null: requests are not signed. */
  signing: Buffer | null;
  /** Notes for the ticket messages that do not fail the step. */
  notes: string[];
}

/**
 * Runs one webhook step (upload, callback or error): every URL of the ticket's list in order,
 * skipping those an earlier attempt delivered. Each delivered URL is recorded at once (with
 * upload export parameters), so a redelivery or a worker taking over resumes after it; the first
 * failure ends the run and the worker redelivers per the step's `redeliverOnError`.
 */
export async function deliver(input: DeliveryInput, step: WebhookStep): Promise<DeliveryOutcome> {
  const { ctx, ticket, params } = input;
  const urls = (params[step] ?? '').split(/\s+/).filter(Boolean);
  const session = new WebhookSession(ctx);
  const messages: string[] = [];
  const fail = (f: DeliveryFailure): DeliveryOutcome => ({
    kind: 'failed',
    errorCode: f.errorCode,
    errorMessage: f.message.split('\n')[0]!,
    messages: [...messages, f.message],
    ...(f.retryAfterMs !== undefined ? { retryAfterMs: f.retryAfterMs } : {}),
  });
  try {
    const state = await loadState(ctx, ticket);
    const connections = connectionsOf(await input.config.of(step));
    const restapi = await input.config.of('restapi');
    const secret = typeof restapi.webhookSecret === 'string' ? await session.secret(restapi.webhookSecret, 'restapi webhookSecret') : null;
    const run: Run = { session, input, signing: secret ? signingKey(secret) : null, notes: messages };
    for (let index = state.done[step] ?? 0; index < urls.length; index++) {
      const ev: WebhookEvent = { step, ticket, params, exports: state.exports, now: ctx.now() };
      const values = placeholderValues(ev);
      const url = fill(urls[index]!, values, escapes.url);
      const target: Target = { index, url, conn: matchConnection(connections, url), ev, values };
      const result = step === 'upload' ? await upload(run, target) : await notify(run, target);
      ctx.metrics.webhookAttempt(step, isDeliveryFailure(result) ? 'failed' : 'delivered');
      if (isDeliveryFailure(result)) return fail(result);
      if (step === 'upload') {
        // Statistics must not fail a delivery that happened; a failed write is only logged.
        await recordUsage(ctx, ticket.tenant, ticket.project, ctx.now(), { uploadRequests: 1, uploadBytes: result.bytesSent, uploadMsec: result.ms }).catch((err: unknown) =>
          ctx.logger.error({ err, ticket: ticket.id }, 'recording upload usage failed'),
        );
      }
      if (step === 'upload' && target.conn?.exportParams?.length) {
        const found = exportParams(target.conn.exportParams, result);
        state.exports = { ...state.exports, ...found.values };
        messages.push(...found.problems);
      }
      state.done[step] = index + 1;
      if (!(await saveState(ctx, ticket, state))) return fail({ errorCode: webhookErrorCodes.network, message: `${step}: lease lost after delivering ${url}` });
    }
    return { kind: 'succeeded', messages, ...(step === 'upload' ? { shipped: true as const } : {}) };
  } catch (err) {
    return fail(WebhookSession.configFailure(err));
  } finally {
    await session.close();
  }
}

/** Standard Webhooks headers when the project has a signing secret. */
async function signed(run: Run, target: Target, body: Buffer | AsyncIterable<Buffer>): Promise<Record<string, string>> {
  if (!run.signing) return {};
  const id = webhookId(run.input.ticket.id, target.ev.step, target.index);
  return signatureHeaders(run.signing, id, Math.floor(target.ev.now / 1000), body);
}

/** A callback or error request. */
async function notify(run: Run, target: Target): Promise<Exchange | DeliveryFailure> {
  const n = await notification(run.session, target.ev, target.conn, target.values);
  const signature = await signed(run, target, n.body ?? Buffer.alloc(0));
  const result = await sendAuthorized(
    run.session,
    target.conn,
    {},
    (auth) => ({ method: n.method, url: target.url, headers: { ...n.headers, ...signature, ...auth }, originOnly: n.originOnly, ...(n.body ? { body: n.body } : {}) }),
    limitsOf(target.ev.step, target.conn),
  );
  return checked(run.session, result);
}

/** The stored output of the ticket, or undefined when none was kept. */
async function outputOf(run: Run): Promise<ArtifactRow | undefined> {
  const { ctx, ticket } = run.input;
  if (!ticket.output_name) return undefined;
  return (await tickets.listArtifacts(ctx.db.kysely, ticket.id)).find((a) => a.kind === 'output' && a.name === ticket.output_name);
}

/** A plain upload (the output as the body) or, with `uploadType: dam`, the asset-management flow. */
async function upload(run: Run, target: Target): Promise<Exchange | DeliveryFailure> {
  const { ctx, ticket, params } = run.input;
  const output = await outputOf(run);
  if (!output) return { errorCode: webhookErrorCodes.config, message: `upload: ticket ${ticket.id} has no stored output (keepOutput never?)` };
  const open = async () => {
    const stream = await artifactStream(ctx.blobs, output);
    if (!stream) throw new DeliveryConfigError(`upload: output ${output.name} is missing from blob storage`);
    return stream;
  };
  const limits = limitsOf('upload', target.conn);
  if (target.conn?.uploadType === 'dam') {
    const fields = assetFields(params.custom, ticket.id);
    run.notes.push(...fields.problems);
    return bynderUpload({ session: run.session, conn: target.conn, portal: target.url, fileName: output.name, open, fields, limits });
  }
  const shape = await uploadShape(run.session, target.conn, target.values);
  // Opened only to sign: an opened stream nobody reads would hold its file or S3 connection.
  const signature = run.signing ? await signed(run, target, await open()) : {};
  const result = await sendAuthorized(
    run.session,
    target.conn,
    {},
    (auth) => ({
      method: shape.method,
      url: target.url,
      headers: { ...shape.headers, ...signature, ...auth },
      originOnly: shape.originOnly,
      body: { open, length: output.size },
      chunked: shape.chunked,
    }),
    limits,
  );
  return checked(run.session, result);
}
