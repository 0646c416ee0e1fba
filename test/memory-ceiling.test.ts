import assert from 'node:assert/strict';
import { totalmem } from 'node:os';
import { describe, it } from 'node:test';
import { defaultMemoryCeilingMb, machineMemoryBytes } from '../src/config/memory-ceiling.js';
import { loadSettings } from '../src/config/settings.js';

const GiB = 2 ** 30;

describe('default memory ceiling of a render job (PRESSROOM_RENDER_MAX_MEMORY_MB unset)', () => {
  it('is half the memory shared among the render processes, in steps of 256 MiB, from 1024 to 65536 MiB', () => {
    assert.equal(defaultMemoryCeilingMb(4 * GiB, 2), 1024);
    assert.equal(defaultMemoryCeilingMb(2 * GiB, 8), 1024, 'never below 1024 MiB');
    assert.equal(defaultMemoryCeilingMb(8 * GiB, 2), 2048);
    assert.equal(defaultMemoryCeilingMb(24152 * 2 ** 20, 2), 5888, '6038 MiB rounds down to 5888');
    assert.equal(defaultMemoryCeilingMb(64 * GiB, 4), 8192);
    assert.equal(defaultMemoryCeilingMb(1024 * GiB, 1), 65536, 'never above the largest value the variable takes');
  });

  it('reads the memory of this machine, or of its container when that is less', () => {
    const bytes = machineMemoryBytes();
    assert.ok(bytes > 0 && bytes <= totalmem(), `${bytes} bytes`);
  });

  it('follows PRESSROOM_RENDER_THREADS, and an explicit value wins', () => {
    const one = loadSettings({ PRESSROOM_RENDER_THREADS: '1' }).renderMaxMemoryMb;
    const four = loadSettings({ PRESSROOM_RENDER_THREADS: '4' }).renderMaxMemoryMb;
    assert.equal(one, defaultMemoryCeilingMb(machineMemoryBytes(), 1));
    assert.equal(four, defaultMemoryCeilingMb(machineMemoryBytes(), 4));
    assert.ok(one >= four && four >= 1024, `${one} MiB with one process, ${four} MiB with four`);
    assert.equal(loadSettings({ PRESSROOM_RENDER_THREADS: '1', PRESSROOM_RENDER_MAX_MEMORY_MB: '300' }).renderMaxMemoryMb, 300);
    assert.throws(() => loadSettings({ PRESSROOM_RENDER_MAX_MEMORY_MB: '100' }), /PRESSROOM_RENDER_MAX_MEMORY_MB must be an integer from 192 to 65536, got "100"/);
  });
});
