import { api } from '../../api/client';
import { useLoad } from '../../components/hooks';
import type { ProjectAccess } from '../../state/session';

/** The render log stored with a failed ticket (`<ticket>.typst.log` or `.pptx.log`), read without shipping. */
export function RenderLog({ project, ticket, complete }: { project: ProjectAccess; ticket: string; complete: boolean }) {
  const { data } = useLoad(
    async (signal) => {
      for (const name of [`${ticket}.typst.log`, `${ticket}.pptx.log`]) {
        const r = await api.GET('/rest/tenants/{tenant}/projects/{project}/storage/{filename}', {
          params: { path: { tenant: project.tenant, project: project.project, filename: name }, query: { shipped: false } },
          headers: { accept: '*/*' },
          parseAs: 'text',
          signal,
        });
        if (r.response.ok) return r.data as unknown as string;
      }
      return null;
    },
    `${ticket}/${complete}`,
  );
  return (
    <details open>
      <summary>Render log</summary>
      {data ? <pre class="log" tabIndex={0} aria-label="Render log">{data}</pre> : <p>{data === null ? 'No render log is stored for this ticket.' : 'Loading…'}</p>}
    </details>
  );
}
