import { Field } from '../../components/field';
import { useMemo, useState } from 'preact/hooks';
import { api, ok, type Paths } from '../../api/client';
import { formatInt, formatMs } from '../../components/format';
import { useLoad } from '../../components/hooks';
import { isOperator, session } from '../../state/session';
import { Chart, type Series } from './chart';

type Summary = Paths['/rest/statistics']['get']['responses'][200]['content']['application/json'][number];
type Unit = 'hour' | 'day' | 'month' | 'year';
type Reach = 'project' | 'tenant' | 'all';

/** How far back each unit looks by default. */
function startFor(unit: Unit, now = new Date()): string {
  const d = new Date(now);
  if (unit === 'hour') d.setUTCHours(d.getUTCHours() - 48, 0, 0, 0);
  else if (unit === 'day') d.setUTCDate(d.getUTCDate() - 31);
  else if (unit === 'month') d.setUTCMonth(d.getUTCMonth() - 12, 1);
  else d.setUTCFullYear(d.getUTCFullYear() - 10, 0, 1);
  return d.toISOString();
}

/** Sums the entries of all tenants and projects per interval start. */
function byInterval(rows: Summary[]): { x: number[]; sum: Map<number, Summary> } {
  const sum = new Map<number, Summary>();
  for (const r of rows) {
    const t = Date.parse(r.startDate) / 1000;
    const acc = sum.get(t);
    if (!acc) sum.set(t, { ...r });
    else for (const k of ['tickets', 'errors', 'processingMsec', 'processingPages', 'totalMsec', 'redeliveries'] as const) acc[k] += r[k];
  }
  return { x: [...sum.keys()].sort((a, b) => a - b), sum };
}

/** Charts of tickets, errors, processing time and pages per hour, day, month or year. */
export function StatisticsView() {
  const s = session.value!;
  const operator = isOperator.value;
  const [unit, setUnit] = useState<Unit>('day');
  const [reach, setReach] = useState<Reach>(s.project ? 'project' : 'all');
  const p = s.project;
  const query = { unit, startDate: startFor(unit) };

  const key = `${reach}/${p?.tenant}/${p?.project}/${unit}`;
  const { data, error } = useLoad(async (signal) => {
    if (reach === 'all') return ok(await api.GET('/rest/statistics', { params: { query }, signal }));
    if (!p) return [];
    if (reach === 'tenant') return ok(await api.GET('/rest/statistics/tenants/{tenant}', { params: { path: { tenant: p.tenant }, query }, signal }));
    return ok(await api.GET('/rest/statistics/tenants/{tenant}/projects/{project}', { params: { path: { tenant: p.tenant, project: p.project }, query }, signal }));
  }, key);

  const charts = useMemo(() => {
    if (!data) return null;
    const { x, sum } = byInterval(data);
    const col = (f: (r: Summary) => number | null) => x.map((t) => f(sum.get(t)!));
    const perTicket = (k: 'processingMsec' | 'totalMsec') => (r: Summary) => (r.tickets ? r[k] / r.tickets : null);
    return {
      x,
      tickets: [
        { label: 'Tickets', values: col((r) => r.tickets), color: '#2563eb' },
        { label: 'Errors', values: col((r) => r.errors), color: '#dc2626' },
      ] satisfies Series[],
      time: [
        { label: 'Processing per ticket', values: col(perTicket('processingMsec')), color: '#7c3aed' },
        { label: 'Total per ticket', values: col(perTicket('totalMsec')), color: '#0891b2' },
      ] satisfies Series[],
      pages: [{ label: 'Pages', values: col((r) => r.processingPages), color: '#16a34a' }] satisfies Series[],
    };
  }, [data]);

  // The x axis: from the asked start to the end of the current interval.
  const period = useMemo((): [number, number] => {
    const step = { hour: 3600, day: 86_400, month: 31 * 86_400, year: 366 * 86_400 }[unit];
    return [Math.floor(Date.parse(startFor(unit)) / 1000), Math.ceil(Date.now() / 1000) + step];
  }, [unit, data]);

  return (
    <main id="main" tabIndex={-1}>
      <h1>Statistics</h1>
      <div class="toolbar">
        <Field label="Unit">
          {(id) => (
            <select id={id} value={unit} onChange={(e) => setUnit(e.currentTarget.value as Unit)}>
              <option value="hour">hour</option>
              <option value="day">day</option>
              <option value="month">month</option>
              <option value="year">year</option>
            </select>
          )}
        </Field>
        {operator && (
          <Field label="Statistics of">
            {(id) => (
              <select id={id} value={reach} onChange={(e) => setReach(e.currentTarget.value as Reach)}>
                {p && <option value="project">project {p.tenant}/{p.project}</option>}
                {p && <option value="tenant">tenant {p.tenant}</option>}
                <option value="all">all tenants</option>
              </select>
            )}
          </Field>
        )}
      </div>
      {error && <p role="alert" class="error">{error}</p>}
      {charts && charts.x.length === 0 && <p role="status">No tickets were completed in this period.</p>}
      {charts && charts.x.length > 0 && (
        <div class="charts">
          <Chart period={period} title="Tickets and errors" unit={`per ${unit}`} x={charts.x} series={charts.tickets} format={(n) => formatInt(Math.round(n))} />
          <Chart period={period} title="Processing time" unit="average per ticket" x={charts.x} series={charts.time} format={(n) => formatMs(n)} />
          <Chart period={period} title="Pages" unit={`per ${unit}`} x={charts.x} series={charts.pages} format={(n) => formatInt(Math.round(n))} />
        </div>
      )}
    </main>
  );
}
