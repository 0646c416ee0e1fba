import { useLocation, useRoute } from 'preact-iso';
import { api, ok } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useLoad } from '../../components/hooks';
import { NeedsProject } from '../../components/needs-project';
import type { ProjectAccess } from '../../state/session';
import { Downloads } from './downloads';
import { RenderLog } from './render-log';
import { StatusBadge } from './status-badge';
import { Thumbnails } from './thumbnails';
import { TicketFields } from './ticket-fields';
import { Timeline } from './timeline';

/** One ticket: every status field, messages, timeline, pages, downloads; live while open. */
export function TicketPage() {
  return <NeedsProject title="Ticket">{(p) => <Ticket project={p} />}</NeedsProject>;
}

function Ticket({ project }: { project: ProjectAccess }) {
  const { params } = useRoute();
  const { route } = useLocation();
  const id = params.id ?? '';
  const path = { tenant: project.tenant, project: project.project, ticket: id };
  const status = useLoad(async (signal) => ok(await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/status', { params: { path }, signal })), `${project.tenant}/${project.project}/${id}`, 1000);
  const t = status.data;

  if (status.failure instanceof ApiError && status.failure.status === 404) {
    return (
      <main id="main" tabIndex={-1}>
        <h1>Ticket not found</h1>
        <p role="alert">There is no ticket {id} in project {project.tenant} / {project.project}.</p>
        <p>
          <a href="/studio/tickets">All tickets</a>
        </p>
      </main>
    );
  }

  const failed = t ? t.errorCode !== null || t.status?.endsWith('.failed') === true : false;
  return (
    <main id="main" tabIndex={-1}>
      <p>
        <a href="/studio/tickets">All tickets</a>
      </p>
      <h1>Ticket {id}</h1>
      {status.error && <p role="alert" class="error">{status.error}</p>}
      {t && (
        <>
          <p class="lead">
            <StatusBadge status={t.status} complete={t.complete} errorCode={t.errorCode} />
          </p>
          {failed && (
            <section aria-labelledby="failure" class="failure">
              <h2 id="failure">Failure</h2>
              <p>
                <strong>{t.errorCode ?? 'error'}</strong>: {t.errorMessage ?? t.status}
              </p>
              <button type="button" onClick={() => route(`/studio/playground?ticket=${encodeURIComponent(id)}`)}>
                Open in playground
              </button>
              <RenderLog project={project} ticket={id} complete={t.complete} />
            </section>
          )}
          <Downloads project={project} ticket={t} />
          <TicketFields ticket={t} />
          <section aria-labelledby="messages">
            <h2 id="messages">Messages and webhook attempts</h2>
            {t.messages.length === 0 ? (
              <p>None.</p>
            ) : (
              <ol class="messages">
                {t.messages.map((m, i) => (
                  <li key={i}>
                    <code>{m}</code>
                  </li>
                ))}
              </ol>
            )}
          </section>
          <Timeline project={project} ticket={id} live={!t.complete} />
          {t.complete && t.outputName?.endsWith('.pdf') && <Thumbnails project={project} ticket={id} />}
        </>
      )}
    </main>
  );
}
