import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eventChannel } from '../src/store/index.js';

it('names one NOTIFY channel per schema, within the 63 bytes of an identifier', () => {
  // The name earlier versions used for every schema, kept for the default one.
  assert.equal(eventChannel('public'), 'pressroom_events');
  assert.equal(eventChannel('tenant_eu'), 'pressroom_events_tenant_eu');
  const a = `${'s'.repeat(60)}_aa`;
  const b = `${'s'.repeat(60)}_bb`;
  for (const schema of [a, b]) {
    assert.ok(eventChannel(schema).length <= 63, eventChannel(schema));
    assert.equal(eventChannel(schema), eventChannel(schema));
  }
  assert.notEqual(eventChannel(a), eventChannel(b), 'schemas alike in their first 50 characters still get their own channels');
});
