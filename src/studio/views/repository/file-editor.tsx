import { json } from '@codemirror/lang-json';
import { xml } from '@codemirror/lang-xml';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ok, saveBlob } from '../../api/client';
import { ApiError, describeError } from '../../api/errors';
import { useDebounced, useLoad } from '../../components/hooks';
import { CodeEditor, type Marker } from '../playground/code-editor';
import { typst } from '../playground/typst-language';
import { markProperty } from './property-lines';

const textExtensions = /\.(ion|json|xml|xslt|xsl|typ|txt|csv|md|svg|html|css|yml|yaml)$/i;
const isConfig = (path: string) => path.endsWith('.ion');

/** Asks the service whether the text would be accepted at this path; the problems at their properties. */
async function validate(path: string, text: string): Promise<Marker[]> {
  const r = await api.POST('/rest/repository/validate/{path}', { params: { path: { path: path } }, body: text, bodySerializer: (b: unknown) => b as string, headers: { 'content-type': 'application/octet-stream' } });
  if (r.response.ok) return [];
  const body = (r.error ?? {}) as { message?: string; details?: { field?: string; message: string }[] };
  if (r.response.status !== 400) throw new ApiError(r.response.status, body);
  const details = body.details?.length ? body.details : [{ message: body.message ?? 'invalid' }];
  return details.map((d) => markProperty(text, d.field, d.message));
}

/** View and edit one repository file; config files are checked by the service as you type and before saving. */
export function FileEditor({ path, onChanged, onDeleted }: { path: string; onChanged(): void; onDeleted(): void }) {
  const isText = textExtensions.test(path);
  const file = useLoad(async (signal) => {
    const r = await api.GET('/rest/repository/files/{path}', { params: { path: { path: path } }, headers: { accept: '*/*' }, parseAs: 'blob', signal });
    if (!r.response.ok) throw new ApiError(r.response.status, { message: `${path} could not be read (HTTP ${r.response.status})` });
    return r.data as unknown as Blob;
  }, path);
  const [text, setText] = useState<string | null>(null);
  const [markers, setMarkers] = useState<Marker[]>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const lang = useMemo(() => (/\.(xml|xslt|xsl|svg|html)$/.test(path) ? xml() : /\.(json|ion)$/.test(path) ? json() : typst), [path]);

  useEffect(() => {
    if (file.data && isText) void file.data.text().then(setText);
  }, [file.data]);

  // Live check of config files, a moment after typing stops.
  const settled = useDebounced(text, 400);
  useEffect(() => {
    if (settled === null || !isConfig(path)) return;
    validate(path, settled).then(setMarkers, () => {});
  }, [settled]);

  async function save() {
    if (text === null) return;
    setMessage(null);
    try {
      if (isConfig(path)) {
        const problems = await validate(path, text);
        setMarkers(problems);
        if (problems.length) return setMessage({ text: `Not saved: ${problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('; ')}`, error: true });
      }
      ok(await api.PUT('/rest/repository/files/{path}', { params: { path: { path: path } }, body: text as never, bodySerializer: (b: unknown) => b as string, headers: { 'content-type': 'application/octet-stream' } }));
      setMessage({ text: `Saved ${path}.`, error: false });
      onChanged();
    } catch (err) {
      setMessage({ text: describeError(err), error: true });
    }
  }
  async function remove() {
    if (!confirm(`Delete ${path}?`)) return;
    try {
      ok(await api.DELETE('/rest/repository/files/{path}', { params: { path: { path: path } } }));
      onDeleted();
    } catch (err) {
      setMessage({ text: describeError(err), error: true });
    }
  }

  return (
    <section aria-labelledby="file-heading">
      <h2 id="file-heading">{path}</h2>
      <div class="buttons">
        {isText && (
          <button type="button" onClick={save} disabled={text === null}>
            Save file
          </button>
        )}
        <button type="button" onClick={() => file.data && saveBlob(file.data, path.split('/').pop()!)} disabled={!file.data}>
          Download file
        </button>
        <button type="button" onClick={remove}>
          Delete file
        </button>
      </div>
      {message && (
        <p role={message.error ? 'alert' : 'status'} class={message.error ? 'error' : 'notice'}>
          {message.text}
        </p>
      )}
      {file.error && <p role="alert" class="error">{file.error}</p>}
      {markers.length > 0 && (
        <ol class="problems" aria-label="Problems">
          {markers.map((m, i) => (
            <li key={i}>
              {m.line}:{m.column} {m.message}
            </li>
          ))}
        </ol>
      )}
      {isText ? text !== null && <CodeEditor label="File content" value={text} onChange={setText} language={lang} markers={markers} /> : file.data && <p>A binary file of {file.data.size} bytes.</p>}
    </section>
  );
}
