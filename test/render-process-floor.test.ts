import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, it } from 'node:test';
import pino from 'pino';
import { JOB_ROOT, TypstEngine, type JobFile } from '../src/engines/typst/index.js';
import { pdfText } from './helpers/pdf.js';

// A render process is recycled when the memory it holds between jobs rises (pool.test.ts shows
// the rule); what it keeps on purpose, the shared files of later jobs, must not count.

const MiB = 1024 * 1024;
const engine = new TypstEngine({ size: 1, timeoutMs: 30_000, floorRise: { settleJobs: 3, windowJobs: 2, marginBytes: 16 * MiB }, logger: pino({ level: 'silent' }) });
after(() => engine.close());

const main: JobFile = { path: `${JOB_ROOT}/main.typ`, data: Buffer.from('= Sheet #sys.inputs.n\n') };

it('does not recycle a render process for the shared files it keeps', async () => {
  for (let n = 0; n < 10; n++) {
    // Every job brings another 4 MiB file; from the fourth job on the process keeps it (28 MiB
    // in all, under its 32), before that it is the job's own. What crosses per job is the same.
    const photo: JobFile = { path: `${JOB_ROOT}/images/photo-${n}.bin`, data: randomBytes(4 * MiB), reusable: n >= 3 };
    const out = await engine.render({ files: [main, photo], main: main.path, inputs: { n: String(n) }, pdfTags: false });
    assert.match((await pdfText(out.pdf)).join(' '), new RegExp(`Sheet ${n}`));
  }
  const stats = engine.stats();
  assert.equal(stats.replaced.recycled, 0, JSON.stringify(stats));
  assert.equal(stats.started, 1);
});
