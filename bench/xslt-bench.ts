import { Transformer, type TransformRequest } from '../src/engines/xslt/index.js';

const XSL = 'xmlns:xsl="http://www.w3.org/1999/XSL/Transform" exclude-result-prefixes="#all"';
const copy = `<xsl:stylesheet version="3.0" ${XSL}><xsl:template match="/"><out><xsl:copy-of select="."/></out></xsl:template></xsl:stylesheet>`;

/** The XSLT sandbox: first compile + transform, then the latency of a small cached transform. */
export async function xsltBench(runs = 100): Promise<Record<string, unknown>> {
  const t = new Transformer({ processes: 1, timeoutMs: 20_000 });
  const req: TransformRequest = {
    stylesheet: Buffer.from(copy),
    stylesheetName: 'bench.xslt',
    input: Buffer.from('<order><item n="1"/><item n="2"/></order>'),
    inputType: 'xml',
    params: { ticket: 'T' },
  };
  try {
    let started = performance.now();
    await t.transform(req);
    const firstMs = performance.now() - started;
    for (let i = 0; i < 10; i++) await t.transform(req);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      started = performance.now();
      await t.transform(req);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => +times[Math.floor(q * (times.length - 1))]!.toFixed(2);
    return { compileAndTransformMs: +firstMs.toFixed(1), cachedRuns: runs, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: at(1) };
  } finally {
    await t.close();
  }
}
