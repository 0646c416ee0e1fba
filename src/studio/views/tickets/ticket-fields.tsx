import type { Paths } from '../../api/client';
import { formatDateTime, formatMs } from '../../components/format';

export type TicketStatus = Paths['/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/status']['get']['responses'][200]['content']['application/json'];

const labels: Record<string, string> = { processingMsecs: 'processingMsecs (rendering time)' };

function show(key: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if ((key === 'created' || key === 'updated') && typeof value === 'string') return `${formatDateTime(value)} (${value})`;
  if (key === 'processingMsecs' && typeof value === 'number') return formatMs(value);
  if (Array.isArray(value)) return `${value.length} entries`;
  return String(value);
}

/** Every field of the TicketStatusView, under the name the API gives it. */
export function TicketFields({ ticket }: { ticket: TicketStatus }) {
  return (
    <section aria-labelledby="fields">
      <h2 id="fields">Status</h2>
      <dl class="fields">
        {Object.entries(ticket).map(([key, value]) => (
          <div key={key}>
            <dt>{labels[key] ?? key}</dt>
            <dd>{show(key, value)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
