import type { Principal } from '../auth/index.js';
import { checkRepositoryFile, ConfigFileError, configKindOf, invalidConfig, mergeConfig, normalizeConfig, parseIonStruct, toIonText } from '../config/ion/index.js';
import { readRepositoryBlob } from './lookup.js';
import type { Context } from '../context.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { repoFiles } from '../store/index.js';
import { authorizePath, requireScopeExists } from './access.js';
import { applyChanges, sha256Of } from './changes.js';
import { iso } from './files.js';
import { parseFilePath, type RepoPath } from './paths.js';

/** One element of the bulk body (contract: BulkOperation). */
export interface BulkOperation {
  action: 'DELETE' | 'PUT' | 'PATCH' | 'GET';
  paths: string[];
  value?: string;
  encoding?: 'utf8' | 'base64';
  patch?: Record<string, unknown>;
}

/** One result per operation and path, in request order. */
export interface BulkResult {
  index: number;
  action: BulkOperation['action'];
  path: string;
  status: number;
  created?: boolean;
  deleted?: boolean;
  size?: number;
  sha256?: string;
  updated?: string;
  encoding?: 'utf8' | 'base64';
  value?: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Re-raises an error of one operation with the operation's index and path in message and details. */
function inOperation(err: unknown, index: number, action: string, path: string): never {
  if (!(err instanceof AppError)) throw err;
  const where = `[${index}] ${path}`;
  const details = (err.details ?? [{ message: err.publicMessage }]).map((d) => ({ field: where, message: d.field ? `${d.field}: ${d.message}` : d.message }));
  throw new AppError(err.code, `operation ${index} (${action} ${path}): ${err.publicMessage}`, { details, cause: err.options.cause ?? err });
}

/** Contents as the batch sees them: earlier operations of the same batch first, then the store. */
class Overlay {
  readonly staged = new Map<string, Buffer | null>();
  constructor(private readonly ctx: Context) {}

  async read(path: string): Promise<Buffer | undefined> {
    if (this.staged.has(path)) return this.staged.get(path) ?? undefined;
    const row = await repoFiles.findRepoFile(this.ctx.db.kysely, path);
    return row ? readRepositoryBlob(this.ctx, row) : undefined;
  }
}

function patched(path: string, current: Buffer | undefined, patch: Record<string, unknown>): Buffer {
  if (!path.endsWith('.ion')) throw badRequest('PATCH applies to .ion files only', 'action');
  const kind = configKindOf(path);
  try {
    const base = current ? parseIonStruct(current) : {};
    // Step configs are normalised first so a dotted key in the patch meets its nested twin.
    const merged = kind ? mergeConfig(normalizeConfig(kind.step, base), normalizeConfig(kind.step, patch)) : mergeConfig(base, patch);
    return Buffer.from(toIonText(merged));
  } catch (err) {
    if (err instanceof ConfigFileError) throw invalidConfig(path, err);
    throw err;
  }
}

async function runOne(ctx: Context, overlay: Overlay, op: BulkOperation, index: number, target: RepoPath, budget: { bytes: number }): Promise<BulkResult> {
  const base = { index, action: op.action, path: target.path, status: 200 };
  const current = await overlay.read(target.path);
  const write = (data: Buffer): BulkResult => {
    checkRepositoryFile(target.path, data);
    overlay.staged.set(target.path, data);
    return { ...base, created: current === undefined, size: data.length, sha256: sha256Of(data) };
  };
  switch (op.action) {
    case 'GET': {
      if (current === undefined) throw notFound(`repository file ${target.path}`);
      budget.bytes -= current.length;
      if (budget.bytes < 0) throw badRequest('GET results exceed the response limit; read large files one at a time', 'paths');
      let text: string | undefined;
      if (op.encoding !== 'base64') {
        try {
          text = utf8.decode(current);
        } catch {
          text = undefined;
        }
      }
      return { ...base, size: current.length, sha256: sha256Of(current), encoding: text === undefined ? 'base64' : 'utf8', value: text ?? current.toString('base64') };
    }
    case 'DELETE':
      if (current === undefined) throw notFound(`repository file ${target.path}`);
      overlay.staged.set(target.path, null);
      return { ...base, deleted: true };
    case 'PUT':
      if (op.value === undefined) throw badRequest('PUT needs a value', 'value');
      return write(Buffer.from(op.value, op.encoding === 'base64' ? 'base64' : 'utf8'));
    case 'PATCH':
      if (op.patch === undefined) throw badRequest('PATCH needs a patch object', 'patch');
      return write(patched(target.path, current, op.patch));
  }
}

/**
 * Runs a bulk commit all-or-nothing: every operation is validated and authorized, and
 * run in order against a staged view (so a GET sees an earlier PUT of the same batch);
 * only when all succeed are the final contents stored, in one transaction.
 */
export async function runBulk(ctx: Context, p: Principal, ops: readonly BulkOperation[]): Promise<{ results: BulkResult[] }> {
  const targets = ops.map((op, i) =>
    op.paths.map((raw) => {
      try {
        const t = parseFilePath(raw);
        authorizePath(p, t);
        return t;
      } catch (err) {
        return inOperation(err, i, op.action, raw);
      }
    }),
  );
  const overlay = new Overlay(ctx);
  const budget = { bytes: ctx.settings.bodyLimit };
  const results: BulkResult[] = [];
  for (const [i, op] of ops.entries()) {
    for (const target of targets[i]!) {
      try {
        if (op.action === 'PUT' || op.action === 'PATCH') await requireScopeExists(ctx, target.scope);
        results.push(await runOne(ctx, overlay, op, i, target, budget));
      } catch (err) {
        inOperation(err, i, op.action, target.path);
      }
    }
  }
  const applied = await applyChanges(ctx, [...overlay.staged].map(([path, data]) => ({ path, data })));
  const updated = new Map(applied.flatMap((a) => (a.kind === 'written' ? [[a.path, iso(a.row.updated)] as const] : [])));
  return { results: results.map((r) => (r.sha256 && r.action !== 'GET' ? { ...r, updated: updated.get(r.path) ?? iso(ctx.now()) } : r)) };
}
