import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Connection } from '../connections.js';
import type { TokenSource } from '../credentials.js';
import type { Exchange, OutgoingRequest } from '../http.js';
import { webhookErrorCodes, type DeliveryFailure } from '../outcome.js';
import type { DeliveryLimits } from '../requests.js';
import { checked, isDeliveryFailure, sendAuthorized } from '../send.js';
import type { WebhookSession } from '../session.js';
import { DEFAULT_DAM_SCOPES, saveForm, type AssetFields } from './asset-fields.js';
import { chunksOf } from './chunks.js';

/** Bynder's chunk size (its SDKs use 5 MiB). */
const CHUNK_BYTES = 5 * 1024 * 1024;
/** "Import not converted yet, please poll": how often, and how long, the save is retried. */
const SAVE_POLL_MS = 1000;
const SAVE_POLLS = 60;

/** What the uploader needs from the step. */
export interface DamUpload {
  session: WebhookSession;
  conn: Connection;
  /** The resolved upload URL: the portal's base URL, e.g. `https://acme.getbynder.com/`. */
  portal: string;
  fileName: string;
  open(): Promise<Readable>;
  fields: AssetFields;
  limits: DeliveryLimits;
}

function json(ex: Exchange): Record<string, unknown> | unknown[] | undefined {
  try {
    return JSON.parse(ex.body.toString('utf8')) as Record<string, unknown> | unknown[];
  } catch {
    return undefined;
  }
}

/**
 * Uploads the output to Bynder as its API documents it: OAuth2 token
 * (`/v6/authentication/oauth2/token`), `POST /v7/file_cmds/upload/prepare`, the file in 5 MiB
 * chunks (`/chunk/<n>` with `Content-SHA256`), `finalise_api` (name, size, chunk count, SHA-256),
 * then `POST /api/v4/media/save/<fileId>/` (or `/api/v4/media/<mediaId>/save/<fileId>/` for a new
 * version), polling while Bynder answers 303. Returns the save exchange (for exportParams).
 */
export async function bynderUpload(job: DamUpload): Promise<Exchange | DeliveryFailure> {
  const { session, conn, limits } = job;
  const base = job.portal.endsWith('/') ? job.portal : `${job.portal}/`;
  const at = (path: string) => new URL(path, base).href;
  const source: TokenSource = { defaultTokenUrl: at('v6/authentication/oauth2/token'), defaultScopes: DEFAULT_DAM_SCOPES };
  const call = async (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
    checked(
      session,
      await sendAuthorized(
        session,
        conn,
        source,
        (auth): OutgoingRequest => ({ method, url: at(path), headers: { 'user-agent': 'pressroom service-upload', accept: 'application/json', ...headers, ...auth }, ...(body ? { body } : {}) }),
        limits,
      ),
    );
  const form = (params: URLSearchParams) => [Buffer.from(params.toString()), { 'content-type': 'application/x-www-form-urlencoded' }] as const;

  let brandId = job.fields.brandId;
  if (!brandId && !job.fields.mediaId) {
    const brands = await call('GET', 'api/v4/brands/');
    if (isDeliveryFailure(brands)) return brands;
    const first = (json(brands) as { id?: unknown }[] | undefined)?.[0]?.id;
    if (typeof first !== 'string') return { errorCode: webhookErrorCodes.config, message: `DAM ${base}: no brand to save the asset to (set custom parameter dam_brand_id)` };
    brandId = first;
  }

  const prepared = await call('POST', 'v7/file_cmds/upload/prepare', Buffer.from('{}'), { 'content-type': 'application/json' });
  if (isDeliveryFailure(prepared)) return prepared;
  const fileId = (json(prepared) as { file_id?: unknown } | undefined)?.file_id;
  if (typeof fileId !== 'string' || !/^[\w-]+$/.test(fileId)) return { errorCode: webhookErrorCodes.network, message: `DAM ${base}: prepare answered without a usable file_id` };

  const whole = createHash('sha256');
  let size = 0;
  let count = 0;
  for await (const chunk of chunksOf(await job.open(), CHUNK_BYTES)) {
    whole.update(chunk);
    size += chunk.length;
    const sent = await call('POST', `v7/file_cmds/upload/${fileId}/chunk/${count}`, chunk, {
      'content-type': 'application/octet-stream',
      'content-sha256': createHash('sha256').update(chunk).digest('hex'),
    });
    if (isDeliveryFailure(sent)) return sent;
    count++;
  }

  const finalise = new URLSearchParams({ fileName: job.fileName, fileSize: String(size), chunksCount: String(count), sha256: whole.digest('hex'), intent: 'upload_main_uploader_asset' });
  const finalised = await call('POST', `v7/file_cmds/upload/${fileId}/finalise_api`, ...form(finalise));
  if (isDeliveryFailure(finalised)) return finalised;

  const savePath = job.fields.mediaId ? `api/v4/media/${encodeURIComponent(job.fields.mediaId)}/save/${fileId}/` : `api/v4/media/save/${fileId}/`;
  for (let poll = 0; ; poll++) {
    const ex = await sendAuthorized(
      session,
      conn,
      source,
      (auth) => ({
        method: 'POST',
        url: at(savePath),
        headers: { 'user-agent': 'pressroom service-upload', accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...auth },
        body: Buffer.from(saveForm(job.fields, brandId).toString()),
      }),
      limits,
    );
    // 303: Bynder has not converted the upload yet; the documented answer is to poll.
    if (!isDeliveryFailure(ex) && ex.status === 303 && poll < SAVE_POLLS) {
      await new Promise((r) => setTimeout(r, SAVE_POLL_MS));
      continue;
    }
    return checked(session, ex);
  }
}
