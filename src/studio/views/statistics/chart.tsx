import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

interface Props {
  title: string;
  /** Interval starts, epoch seconds. */
  x: number[];
  series: Series[];
  unit: string;
  /** The period asked for, epoch seconds: the x axis spans it even when few intervals have tickets. */
  period?: [number, number];
  format(n: number): string;
}

/** One uPlot chart with a data table beside it for screen readers and exact values. */
export function Chart({ title, x, series, unit, period, format }: Props) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current!;
    const bars = uPlot.paths.bars!({ size: [0.6, 40] });
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: 220,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, fill: `${s.color}55`, paths: series.length === 1 ? bars : undefined, width: 2, points: { show: x.length < 60 } }))],
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => format(t)), size: 70 }],
        // The asked period (and any interval outside it). Left to itself, uPlot widens a single
        // interval by 86400 / 1e-3 s, about 2.7 years, as if time were in milliseconds.
        scales: { x: period ? { time: true, range: (): [number, number] => [Math.min(period[0], ...x), Math.max(period[1], ...x)] } : { time: true } },
        legend: { show: true },
      },
      [x, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, period?.[0], period?.[1]]);

  const id = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class="chart" aria-labelledby={id}>
      <figcaption id={id}>
        {title} <span class="hint">({unit})</span>
      </figcaption>
      <div ref={host} role="img" aria-label={`${title} chart: ${series.map((s) => s.label).join(', ')} over ${x.length} intervals`} />
      <details>
        <summary>Table of {title.toLowerCase()}</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Interval start</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {x.map((t, i) => (
              <tr key={t}>
                <td>{new Date(t * 1000).toLocaleString()}</td>
                {series.map((s) => (
                  <td key={s.label} class="num">
                    {s.values[i] === null || s.values[i] === undefined ? '—' : format(s.values[i]!)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
