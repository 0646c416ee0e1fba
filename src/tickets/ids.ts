import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ticket id: 48 bits of millisecond time then 80 random bits, in Crockford base32
 * (26 characters, ULID layout). Sorts by creation time; cannot be guessed.
 */
export function newTicketId(now: number): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = alphabet[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = alphabet[Number(bits & 31n)]! + rand;
    bits >>= 5n;
  }
  return time + rand;
}

/** True for strings shaped like ticket ids (cheap check before touching the store). */
export function isTicketId(s: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(s);
}
