import { Field } from '../../components/field';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import { useLoad } from '../../components/hooks';
import { formatAgo, formatDateTime } from '../../components/format';
import { NeedsProject } from '../../components/needs-project';
import type { ProjectAccess } from '../../state/session';
import { StatusBadge } from './status-badge';

const statusHints = ['renderpdf.succeeded', 'renderpdf.failed', 'renderpptx.succeeded', 'renderpptx.failed', 'convert.succeeded', 'upload.failed', 'callback.succeeded', 'error.succeeded', 'failed', 'succeeded'];
const stepHints = ['transform', 'renderpdf', 'renderpptx', 'convert', 'upload', 'callback', 'error', 'aggregate'];

/** Open and recent tickets, newest first, filtered and paged by the address; refreshed every second. */
export function TicketList() {
  return <NeedsProject title="Tickets">{(p) => <Tickets project={p} />}</NeedsProject>;
}

function Tickets({ project }: { project: ProjectAccess }) {
  const { query, route } = useLocation();
  const filters = { status: query.status ?? '', step: query.step ?? '', foreignKey: query.foreignKey ?? '' };
  const cursor = query.cursor ?? '';
  // Earlier pages' cursors, so "Previous page" can go back (the API pages one way).
  const [back, setBack] = useState<string[]>([]);
  const [draft, setDraft] = useState(filters);

  const key = JSON.stringify([project.tenant, project.project, filters, cursor]);
  const { data, error } = useLoad(
    async (signal) =>
      ok(
        await api.GET('/rest/tenants/{tenant}/projects/{project}/ticket-history', {
          params: {
            path: { tenant: project.tenant, project: project.project },
            query: { ...(filters.status && { status: filters.status }), ...(filters.step && { step: filters.step }), ...(filters.foreignKey && { foreignKey: filters.foreignKey }), ...(cursor && { cursor }), limit: 25 },
          },
          signal,
        }),
      ),
    key,
    1000,
  );

  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries(next).filter(([, v]) => v !== ''));
    route(`/studio/tickets${q.size ? `?${q}` : ''}`);
  };
  const apply = (e: Event) => {
    e.preventDefault();
    setBack([]);
    go(draft);
  };

  return (
    <main id="main" tabIndex={-1}>
      <h1>Tickets</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter tickets">
        <label>
          Status
          <input list="status-hints" value={draft.status} onInput={(e) => setDraft({ ...draft, status: e.currentTarget.value })} placeholder="any" />
        </label>
        <datalist id="status-hints">
          {statusHints.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
        <Field label="Step">
          {(id) => (
            <select id={id} value={draft.step} onChange={(e) => setDraft({ ...draft, step: e.currentTarget.value })}>
              <option value="">any</option>
              {stepHints.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <label>
          Foreign key
          <input value={draft.foreignKey} onInput={(e) => setDraft({ ...draft, foreignKey: e.currentTarget.value })} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      <table class="tickets" aria-label="Tickets of the project" aria-busy={!data && !error}>
        <thead>
          <tr>
            <th scope="col">Ticket</th>
            <th scope="col">Status</th>
            <th scope="col">Next</th>
            <th scope="col">Foreign key</th>
            <th scope="col">Pages</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {data?.tickets.map((t) => (
            <tr key={t.ticket}>
              <td>
                <a href={`/studio/tickets/${encodeURIComponent(t.ticket)}`}>{t.ticket}</a>
              </td>
              <td>
                <StatusBadge status={t.status} complete={t.complete} errorCode={t.errorCode} />
              </td>
              <td>{t.next ?? '—'}</td>
              <td>{t.foreignKey ?? ''}</td>
              <td class="num">{t.processingPages}</td>
              <td title={formatDateTime(t.created)}>{formatAgo(t.created)}</td>
              <td title={formatDateTime(t.updated)}>{formatAgo(t.updated)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.tickets.length === 0 && <p>No tickets{filters.status || filters.step || filters.foreignKey ? ' match these filters' : ' yet'}.</p>}
      <nav class="pager" aria-label="Pages of tickets">
        <button
          type="button"
          disabled={!cursor}
          onClick={() => {
            const prev = back.at(-1) ?? '';
            setBack(back.slice(0, -1));
            go({ ...filters, cursor: prev });
          }}
        >
          Previous page
        </button>
        <button
          type="button"
          disabled={!data?.nextCursor}
          onClick={() => {
            setBack([...back, cursor]);
            go({ ...filters, cursor: data!.nextCursor! });
          }}
        >
          Next page
        </button>
      </nav>
    </main>
  );
}
