import { api, ok } from '../../api/client';
import { formatDateTime, formatMs } from '../../components/format';
import { useLoad } from '../../components/hooks';
import type { ProjectAccess } from '../../state/session';

/** The steps the ticket went through, each attempt with its duration, drawn to scale. */
export function Timeline({ project, ticket, live }: { project: ProjectAccess; ticket: string; live: boolean }) {
  const path = { tenant: project.tenant, project: project.project, ticket };
  const { data, error } = useLoad(async (signal) => ok(await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/timeline', { params: { path }, signal })), `${ticket}/${live}`, live ? 1000 : undefined);
  const steps = data?.steps ?? [];
  const start = steps.length ? Math.min(...steps.map((s) => Date.parse(s.startedAt))) : 0;
  const end = steps.length ? Math.max(...steps.map((s) => (s.endedAt ? Date.parse(s.endedAt) : Date.now()))) : 0;
  const span = Math.max(1, end - start);
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {data && steps.length === 0 && <p>No steps recorded.</p>}
      {steps.length > 0 && (
        <table class="timeline">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Attempt</th>
              <th scope="col">Outcome</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">Error code</th>
              <th scope="col" aria-hidden="true">
                Time
              </th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s, i) => {
              const from = Date.parse(s.startedAt) - start;
              const width = (s.durationMs ?? (s.endedAt ? Date.parse(s.endedAt) : Date.now()) - Date.parse(s.startedAt)) || 0;
              return (
                <tr key={i} class={s.outcome}>
                  <td>{s.step}</td>
                  <td class="num">{s.attempt}</td>
                  <td>{s.outcome}</td>
                  <td>{formatDateTime(s.startedAt)}</td>
                  <td class="num">{formatMs(s.durationMs)}</td>
                  <td>{s.errorCode ?? ''}</td>
                  <td class="bar-cell" aria-hidden="true">
                    <span class="bar" style={{ marginLeft: `${(100 * from) / span}%`, width: `max(2px, ${(100 * width) / span}%)` }} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
