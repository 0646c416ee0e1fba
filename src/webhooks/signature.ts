import { createHmac } from 'node:crypto';
import type { WebhookStep } from './connections.js';

/**
 * The `webhook-id` of one delivery: the same for every attempt at the same ticket, step and URL
 * (redeliveries, a worker taking over after a crash), so receivers can drop duplicates.
 */
export function webhookId(ticket: string, step: WebhookStep, urlIndex: number): string {
  return `msg_${ticket}_${step}_${urlIndex}`;
}

/**
 * The HMAC key of a signing secret. Standard Webhooks secrets are `whsec_` + base64 of the key
 * bytes (what its libraries expect); any other string is used as its UTF-8 bytes.
 */
export function signingKey(secret: string): Buffer {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret.trim());
  return m ? Buffer.from(m[1]!, 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Standard Webhooks headers for one request: `webhook-signature` is `v1,` + base64 of
 * HMAC-SHA256 over `<id>.<timestamp>.<body>` (timestamp in epoch seconds). Stream bodies are
 * hashed as they are read, so a large upload is never held in memory.
 */
export async function signatureHeaders(key: Buffer, id: string, timestampSec: number, body: Buffer | AsyncIterable<Buffer>): Promise<Record<string, string>> {
  const hmac = createHmac('sha256', key).update(`${id}.${timestampSec}.`);
  if (Buffer.isBuffer(body)) hmac.update(body);
  else for await (const chunk of body) hmac.update(chunk);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': `v1,${hmac.digest('base64')}`,
  };
}
