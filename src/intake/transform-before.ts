import { lookupRepositoryFile, readRepositoryBlob } from '../repository/lookup.js';
import type { Context } from '../context.js';
import { TransformError } from '../engines/xslt/index.js';
import { AppError } from '../errors.js';
import { assertSafeXml } from '../xml/index.js';

/**
 * Runs `transformBefore` at intake, which fanout needs: the split reads its output. The output
 * gets the input's XML checks, since the parts are stored as if a client had sent them; a
 * failing stylesheet is the request's fault, so it answers 400 rather than failing tickets.
 */
export async function runTransformBefore(ctx: Context, tenant: string, project: string, name: string, data: Buffer, inputType: 'xml' | 'json', custom: Record<string, string>): Promise<Buffer> {
  const ref = await lookupRepositoryFile(ctx, tenant, project, `transform/xslt/${name}`);
  if (!ref) throw new AppError('bad_request', `transformBefore: stylesheet ${name} not found`, { details: [{ field: 'transformBefore', message: 'stylesheet not found' }] });
  try {
    const out = await ctx.transformer.transform({ stylesheet: await readRepositoryBlob(ctx, ref), stylesheetName: name, input: data, inputType, params: { ...custom, tenant, project } });
    assertSafeXml(out, `output of transformBefore ${name}`);
    return out;
  } catch (err) {
    if (err instanceof TransformError) throw new AppError('bad_request', `transformBefore ${name} failed: ${err.message}`, { details: [{ field: 'transformBefore', message: err.message }] });
    throw err;
  }
}
