import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { JOB_ROOT, type JobFile } from '../../engines/typst/index.js';
import { readHelperLibrary } from '../../repository/builtin-templates.js';
import type { RepoFileRow } from '../../store/index.js';

/** Repository folders a template may use, mapped into the job's view under the same names. */
const sharedFolders = ['master-documents/', 'images/', 'fonts/'];

/** Repository files a job sees, keyed by their path in the job (`/images/logo.png`). */
export type RepositoryView = ReadonlyMap<string, RepoFileRow>;

/** The repository files of those folders, project over tenant over global, keyed by view path. */
export async function repositoryView(ctx: Context, tenant: string, project: string): Promise<Map<string, RepoFileRow>> {
  const levels = ['', `tenants/${tenant}/`, `tenants/${tenant}/projects/${project}/`];
  const rows = await ctx.readMostly.listUnderAny(
    levels.flatMap((level) => sharedFolders.map((folder) => level + folder)),
  );
  const out = new Map<string, RepoFileRow>();
  // Global, then tenant, then project: later levels overwrite earlier ones.
  for (const level of levels) {
    for (const row of rows) {
      if (!row.path.startsWith(level)) continue;
      const rel = row.path.slice(level.length);
      if (sharedFolders.some((f) => rel.startsWith(f))) out.set('/' + rel, row);
    }
  }
  return out;
}

/** Font files among the view, with a key naming the set (render processes cache per set). */
export function fontSet(view: Map<string, RepoFileRow>): { key: string; rows: RepoFileRow[] } {
  const rows = [...view.entries()].filter(([p]) => p.startsWith('/fonts/') && /\.(ttf|otf|ttc|otc)$/i.test(p)).map(([, r]) => r);
  const key = rows.length === 0 ? '' : createHash('sha256').update(rows.map((r) => r.sha256).sort().join(',')).digest('hex');
  return { key, rows };
}

/**
 * A small content-addressed cache of repository blobs, so templates, images and fonts used
 * by every render are read from the blob store once. Bounded by total bytes.
 */
export class BlobCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  async get(ctx: Context, row: Pick<RepoFileRow, 'path' | 'sha256' | 'blob_key'>): Promise<Buffer> {
    const hit = this.entries.get(row.sha256);
    if (hit) {
      this.entries.delete(row.sha256);
      this.entries.set(row.sha256, hit);
      return hit;
    }
    const data = await ctx.blobs.get(row.blob_key);
    if (!data) throw new Error(`repository file ${row.path} is missing from blob storage`);
    if (data.length <= this.maxBytes / 4) {
      this.entries.set(row.sha256, data);
      this.bytes += data.length;
      for (const [k, v] of this.entries) {
        if (this.bytes <= this.maxBytes) break;
        this.entries.delete(k);
        this.bytes -= v.length;
      }
    }
    return data;
  }
}

/** What a Typst job reads besides its repository view: resources, downloaded assets, the data file and the template. */
export interface JobContent {
  resources: readonly { name: string; data: Buffer }[];
  /** Downloaded media assets: their paths in the view and contents. */
  assets?: Iterable<readonly [string, Buffer]>;
  data: Buffer;
  dataType: 'xml' | 'json';
  template: Buffer;
  /** The template's path in the view, e.g. `/master-documents/default.typ`. */
  templatePath: string;
}

/**
 * The files and fonts of a Typst job, in the order they are mapped (a later path wins): the
 * repository view, assets, resources, the data file, the helper library, the template.
 * Repository files carry their known hash, so render processes can keep them between jobs.
 */
export async function typstJobFiles(ctx: Context, cache: BlobCache, view: Map<string, RepoFileRow>, content: JobContent): Promise<{ files: JobFile[]; fonts?: { key: string; files: JobFile[] }; dataPath: string }> {
  const files: JobFile[] = [];
  const fromRepository = async (path: string, row: RepoFileRow): Promise<JobFile> => ({ path: JOB_ROOT + path, data: await cache.get(ctx, row), sha256: row.sha256 });
  for (const [path, row] of view) files.push(await fromRepository(path, row));
  for (const [path, data] of content.assets ?? []) files.push({ path: JOB_ROOT + path, data });
  for (const r of content.resources) files.push({ path: `${JOB_ROOT}/${r.name}`, data: r.data });
  const dataPath = content.dataType === 'xml' ? '/data.xml' : '/data.json';
  files.push({ path: JOB_ROOT + dataPath, data: content.data, reusable: false });
  files.push({ path: `${JOB_ROOT}/pressroom/lib.typ`, data: await readHelperLibrary() });
  files.push({ path: JOB_ROOT + content.templatePath, data: content.template });
  const fonts = fontSet(view);
  if (fonts.rows.length === 0) return { files, dataPath };
  const fontFiles = await Promise.all(fonts.rows.map((row) => fromRepository(row.path, row)));
  return { files, fonts: { key: fonts.key, files: fontFiles }, dataPath };
}
