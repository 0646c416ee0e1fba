import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { describeError } from '../../api/errors';

/** Upload a local file into a folder of the repository (or create an empty text file by path). */
export function Upload({ folder, onDone }: { folder: string; onDone(path: string): void }) {
  const [sub, setSub] = useState('');
  const [error, setError] = useState<string | null>(null);
  const put = async (name: string, body: Blob | string) => {
    setError(null);
    const path = [folder, sub.replace(/^\/+|\/+$/g, ''), name].filter(Boolean).join('/');
    try {
      ok(await api.PUT('/rest/repository/files/{path}', { params: { path: { path: path } }, body: body as never, bodySerializer: (b: unknown) => b as BodyInit, headers: { 'content-type': 'application/octet-stream' } }));
      onDone(path);
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <div class="upload">
      <label>
        Into folder
        <input value={sub} onInput={(e) => setSub(e.currentTarget.value)} placeholder="e.g. master-documents" size={18} />
      </label>
      <label>
        Upload file
        <input
          type="file"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void put(file.name, file);
            e.currentTarget.value = '';
          }}
        />
      </label>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const input = (e.currentTarget as HTMLFormElement).elements.namedItem('newName') as HTMLInputElement;
          if (input.value) void put(input.value, '');
        }}
      >
        <label>
          New file name
          <input name="newName" size={14} placeholder="config.ion" />
        </label>
        <button type="submit">Create</button>
      </form>
      {error && <span role="alert" class="error">{error}</span>}
    </div>
  );
}
