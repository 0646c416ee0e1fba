interface Entry {
  path: string;
  size: number;
}

interface Folder {
  name: string;
  folders: Map<string, Folder>;
  files: Entry[];
}

function build(root: string, files: Entry[]): Folder {
  const top: Folder = { name: root || '/', folders: new Map(), files: [] };
  for (const f of files) {
    const rel = root && f.path.startsWith(`${root}/`) ? f.path.slice(root.length + 1) : f.path;
    const parts = rel.split('/');
    let at = top;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (!next) at.folders.set(part, (next = { name: part, folders: new Map(), files: [] }));
      at = next;
    }
    at.files.push(f);
  }
  return top;
}

function FolderView({ folder, selected, onOpen }: { folder: Folder; selected: string | null; onOpen(path: string): void }) {
  const folders = [...folder.folders.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <ul>
      {folders.map((f) => (
        <li key={f.name}>
          <details open>
            <summary>{f.name}/</summary>
            <FolderView folder={f} selected={selected} onOpen={onOpen} />
          </details>
        </li>
      ))}
      {folder.files
        .sort((a, b) => a.path.localeCompare(b.path))
        .map((f) => (
          <li key={f.path}>
            <a
              href={`/studio/repository?path=${encodeURIComponent(f.path)}`}
              aria-current={f.path === selected ? 'true' : undefined}
              onClick={(e) => {
                e.preventDefault();
                onOpen(f.path);
              }}
            >
              {f.path.split('/').pop()}
            </a>
          </li>
        ))}
    </ul>
  );
}

/** Folders as disclosure widgets (keyboard: Tab, Enter/Space), files as links to their editor. */
export function FileTree({ root, files, selected, onOpen }: { root: string; files: Entry[]; selected: string | null; onOpen(path: string): void }) {
  return <FolderView folder={build(root, files)} selected={selected} onOpen={onOpen} />;
}
