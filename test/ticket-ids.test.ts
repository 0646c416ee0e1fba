import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { isTicketId, newTicketId } from '../src/tickets/index.js';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const decode = (s: string): number => [...s].reduce((n, c) => n * 32 + alphabet.indexOf(c), 0);

describe('ticket ids', () => {
  it('are 26 Crockford base32 characters whose first ten spell the time, and sort by it', () => {
    const now = Date.UTC(2026, 11, 6, 5, 40, 0, 123);
    const id = newTicketId(now);
    assert.ok(isTicketId(id), id);
    assert.equal(decode(id.slice(0, 10)), now);
    assert.ok(newTicketId(now + 1) > newTicketId(now), 'a later millisecond sorts after');
  });

  it('carry 80 random bits: distinct ids within one millisecond, every random digit varying', () => {
    // More ids than one 4 KiB pool of random bytes holds, so the pool is refilled on the way.
    const ids = Array.from({ length: 5000 }, () => newTicketId(1_700_000_000_000));
    assert.equal(new Set(ids).size, ids.length);
    for (let digit = 10; digit < 26; digit++) {
      const seen = new Set(ids.map((id) => id[digit]));
      assert.equal(seen.size, 32, `random digit ${digit} takes every value (saw ${seen.size})`);
    }
  });
});
