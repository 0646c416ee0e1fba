import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../src/cli/heap-growth.js';

describe('serve: V8 heap growth', () => {
  it('sets its own growth when node was started without one', () => {
    assert.equal(heapGrowthFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    assert.equal(heapGrowthFlag(['--max-semi-space-size=4', '--import', 'tsx']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });

  it("leaves an operator's growth alone, in either spelling", () => {
    assert.equal(heapGrowthFlag(['--heap-growing-percent=100']), null);
    assert.equal(heapGrowthFlag(['--max-semi-space-size=4', '--heap_growing_percent=20']), null);
    // A flag that merely starts alike is not the same flag.
    assert.equal(heapGrowthFlag(['--heap-growing-percentile=3']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });
});
