import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../src/errors.js';
import { ExpandGate } from '../src/zip/index.js';

/** A piece of work the test finishes when it wants to. */
function held(): { promise: Promise<void>; finish: () => void } {
  let finish!: () => void;
  const promise = new Promise<void>((r) => (finish = r));
  return { promise, finish };
}

describe('ZIP expansion gate', () => {
  it('runs at most `slots` at once; the next in line starts when one ends', async () => {
    const gate = new ExpandGate(2, 60_000);
    const started: number[] = [];
    const works = [held(), held(), held()];
    const runs = works.map((w, i) =>
      gate.run(async () => {
        started.push(i);
        await w.promise;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    works[1]!.finish();
    assert.equal(await runs[1], 1);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1, 2]);
    works[0]!.finish();
    works[2]!.finish();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
  });

  it('answers 503 with Retry-After to one that waited too long, and keeps its slot count right', async () => {
    const gate = new ExpandGate(1, 50);
    const blocker = held();
    const first = gate.run(() => blocker.promise);
    const err = await gate.run(async () => 'never').then(
      () => assert.fail('should have waited out'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 503);
    assert.equal(err.options.headers?.['retry-after'], '1');
    assert.match(err.publicMessage, /too many ZIP uploads/);
    blocker.finish();
    await first;
    assert.equal(await gate.run(async () => 'free again'), 'free again');
  });
});
