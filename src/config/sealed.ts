import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { meta, type Db } from '../store/index.js';
import type { Settings } from './settings.js';

// Layout of a sealed value: `{sealed:<base64url(version | iv | tag | ciphertext)>}`.
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Binds every ciphertext to its purpose, so it cannot be replayed as another kind of token.
const AAD = Buffer.from('pressroom sealed config value v1');
const PATTERN = /^\{sealed:([A-Za-z0-9_-]+={0,2})\}$/;

/** A sealed value could not be opened: wrong key, altered or truncated. Never carries the value. */
export class SealError extends Error {}

/** Whether a config string is a sealed value (`{sealed:…}`). */
export function isSealed(value: string): boolean {
  return PATTERN.test(value.trim());
}

/** Encrypts `plaintext` (AES-256-GCM, random IV) into the `{sealed:…}` form. */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const packed = Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  return `{sealed:${packed.toString('base64url')}}`;
}

/** Opens a sealed value; plain (unsealed) strings are returned as they are. Throws SealError. */
export function unseal(key: Buffer, value: string): string {
  const m = PATTERN.exec(value.trim());
  if (!m) return value;
  const packed = Buffer.from(m[1]!, 'base64url');
  if (packed.length < 1 + IV_BYTES + TAG_BYTES || packed[0] !== VERSION) throw new SealError('sealed value is malformed or of an unknown version');
  const iv = packed.subarray(1, 1 + IV_BYTES);
  const tag = packed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(packed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealError("sealed value cannot be opened with this deployment's key (sealed elsewhere, or altered)");
  }
}

const keys = new WeakMap<object, Promise<Buffer>>();

/**
 * The deployment's seal key: PRESSROOM_SEAL_KEY, else one generated once and kept in the store's
 * meta table (like the JWT secret), so every process of a deployment opens the same values.
 * Cached per database handle.
 */
export function sealKey(settings: Settings, db: Db['kysely']): Promise<Buffer> {
  if (settings.sealKey) return Promise.resolve(Buffer.from(settings.sealKey, 'base64'));
  let key = keys.get(db);
  if (!key) {
    key = meta.putMetaOnce(db, 'seal_key', randomBytes(32).toString('base64')).then((v) => Buffer.from(v, 'base64'));
    void key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}
