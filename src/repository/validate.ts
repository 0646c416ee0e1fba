import type { Principal } from '../auth/index.js';
import { checkRepositoryFile } from '../config/ion/index.js';
import type { Context } from '../context.js';
import { authorizePath, requireScopeExists } from './access.js';
import { parseFilePath } from './paths.js';

/**
 * Checks a file as a PUT of it would (path, token, tenant/project, config.ion schema) without
 * storing it, so an editor can show a config error before saving. Throws the PUT's error.
 */
export async function validateFile(ctx: Context, p: Principal, rawPath: string, data: Buffer): Promise<{ valid: true }> {
  const target = parseFilePath(rawPath);
  authorizePath(p, target);
  await requireScopeExists(ctx, target.scope);
  checkRepositoryFile(target.path, data);
  return { valid: true };
}
