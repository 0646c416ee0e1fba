import { ZipFile } from 'yazl';

/** A ZIP in memory from name → content; `compress: false` stores entries uncompressed. */
export function zipOf(files: Record<string, Buffer | string>, compress = true): Promise<Buffer> {
  const z = new ZipFile();
  for (const [name, data] of Object.entries(files)) z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name, { compress });
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}
