import { useState } from 'preact/hooks';
import { api, saveBlob } from '../../api/client';
import { ApiError, describeError } from '../../api/errors';
import type { ProjectAccess } from '../../state/session';
import type { TicketStatus } from './ticket-fields';

const typeOfExtension: Record<string, string> = {
  pdf: 'application/pdf',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  zip: 'application/zip',
};
const extensionOfType: Record<string, string> = { 'application/xml': 'xml', 'application/json': 'json', 'application/zip': 'zip' };

/** Artifact, ZIP of all artifacts and input, fetched with the token and saved (never marks shipped). */
export function Downloads({ project, ticket }: { project: ProjectAccess; ticket: TicketStatus }) {
  const [error, setError] = useState<string | null>(null);
  const path = { tenant: project.tenant, project: project.project, ticket: ticket.ticket };
  const ext = ticket.outputName?.split('.').pop() ?? '';

  async function run(fn: () => Promise<void>) {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(describeError(err));
    }
  }
  async function artifact(accept: string, name: string) {
    const r = await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/artifact', { params: { path }, headers: { accept }, parseAs: 'blob' });
    if (!r.response.ok) throw new ApiError(r.response.status, (await r.response.json().catch(() => ({}))) as object);
    saveBlob(r.data as unknown as Blob, name);
  }
  async function input() {
    const r = await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/input', { params: { path }, headers: { accept: '*/*' }, parseAs: 'blob' });
    if (!r.response.ok) throw new ApiError(r.response.status, (r.error ?? {}) as object);
    const type = (r.response.headers.get('content-type') ?? '').split(';')[0]!;
    saveBlob(r.data as unknown as Blob, `${ticket.ticket}.input.${extensionOfType[type] ?? 'bin'}`);
  }

  return (
    <section aria-labelledby="downloads">
      <h2 id="downloads">Downloads</h2>
      <div class="buttons">
        {ticket.complete && ticket.outputName && (
          <button type="button" onClick={() => run(() => artifact(typeOfExtension[ext] ?? '*/*', ticket.outputName!))}>
            Download {ext.toUpperCase() || 'artifact'}
          </button>
        )}
        {ticket.complete && (
          <button type="button" onClick={() => run(() => artifact('application/zip', `${ticket.ticket}.zip`))}>
            Download ZIP
          </button>
        )}
        <button type="button" onClick={() => run(input)}>
          Download input
        </button>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
    </section>
  );
}
