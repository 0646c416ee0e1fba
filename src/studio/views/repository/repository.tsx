import { Field } from '../../components/field';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { useLoad } from '../../components/hooks';
import { NeedsProject } from '../../components/needs-project';
import { isOperator, type ProjectAccess } from '../../state/session';
import { FileEditor } from './file-editor';
import { FileTree } from './file-tree';
import { Upload } from './upload';

type Level = 'project' | 'tenant' | 'global';

function rootOf(level: Level, p: ProjectAccess): string {
  if (level === 'global') return '';
  if (level === 'tenant') return `tenants/${p.tenant}`;
  return `tenants/${p.tenant}/projects/${p.project}`;
}

/** The repository tree of the project (and the tenant and global levels for the operator), with an editor. */
export function RepositoryView() {
  return <NeedsProject title="Repository">{(p) => <Repository project={p} />}</NeedsProject>;
}

function Repository({ project }: { project: ProjectAccess }) {
  const { query, route } = useLocation();
  const [level, setLevel] = useState<Level>('project');
  const [version, setVersion] = useState(0);
  const root = rootOf(level, project);
  const selected = query.path ?? null;

  const tree = useLoad(
    async (signal) =>
      ok(
        root
          ? await api.GET('/rest/repository/tree/{path}', { params: { path: { path: root }, query: { recursive: true, pattern: '' } }, signal })
          : await api.GET('/rest/repository/tree', { params: { query: { recursive: true, pattern: '' } }, signal }),
      ),
    `${root}#${version}`,
  );
  // The global level lists every tenant's files too; they belong to the other levels.
  const files = (tree.data?.files ?? []).filter((f) => level !== 'global' || !f.path.startsWith('tenants/'));
  const open = (path: string | null) => route(path ? `/studio/repository?path=${encodeURIComponent(path)}` : '/studio/repository');
  const changed = () => setVersion((v) => v + 1);

  return (
    <main id="main" tabIndex={-1} class="repository">
      <h1>Repository</h1>
      <div class="toolbar">
        {isOperator.value && (
          <Field label="Level">
            {(id) => (
              <select id={id} value={level} onChange={(e) => setLevel(e.currentTarget.value as Level)}>
                <option value="project">
                  project {project.tenant}/{project.project}
                </option>
                <option value="tenant">tenant {project.tenant}</option>
                <option value="global">global</option>
              </select>
            )}
          </Field>
        )}
        <Upload folder={root} onDone={(path) => (changed(), open(path))} />
      </div>
      {tree.error && <p role="alert" class="error">{tree.error}</p>}
      <div class="panes">
        <nav class="pane tree-pane" aria-label="Files">
          <FileTree root={root} files={files.map((f) => ({ path: f.path, size: f.size }))} selected={selected} onOpen={open} />
          {tree.data && files.length === 0 && <p>No files here yet.</p>}
        </nav>
        <div class="pane">{selected ? <FileEditor key={selected} path={selected} onChanged={changed} onDeleted={() => (changed(), open(null))} /> : <p>Choose a file to view or edit it.</p>}</div>
      </div>
    </main>
  );
}
