import { Field } from '../../components/field';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../../api/errors';
import { data, dataType, SAMPLE_DATA, type DataType } from '../../state/playground';
import type { ProjectAccess } from '../../state/session';
import { listSamples, readSample, ticketInput } from './template-io';

interface Props {
  project: ProjectAccess;
  onLoaded(what: string): void;
  onError(message: string): void;
}

/** Where the data comes from: its type, a local file, a repository sample, or a past ticket's input. */
export function DataSources({ project, onLoaded, onError }: Props) {
  const [samples, setSamples] = useState<string[]>([]);
  const [ticket, setTicket] = useState('');
  useEffect(() => {
    listSamples(project).then(setSamples, () => setSamples([]));
  }, [project.tenant, project.project]);

  const load = async (what: string, fn: () => Promise<{ text: string; type: DataType }>) => {
    try {
      const got = await fn();
      data.value = got.text;
      dataType.value = got.type;
      onLoaded(what);
    } catch (err) {
      onError(describeError(err));
    }
  };

  return (
    <div class="data-sources">
      <Field label="Data type">
        {(id) => (
          <select id={id} value={dataType.value} onChange={(e) => ((dataType.value = e.currentTarget.value as DataType), onLoaded(`data as ${e.currentTarget.value.toUpperCase()}`))}>
            <option value="xml">XML</option>
            <option value="json">JSON</option>
          </select>
        )}
      </Field>
      <label>
        Load data file
        <input
          type="file"
          accept=".xml,.json,application/xml,application/json,text/xml"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) void load(file.name, async () => ({ text: await file.text(), type: file.name.endsWith('.json') ? 'json' : 'xml' }));
          }}
        />
      </label>
      <Field label="Sample data">
        {(id) => (
          <select
            id={id}
            value=""
            onChange={(e) => {
              const v = e.currentTarget.value;
              if (v === 'builtin') void load('the built-in sample', async () => ({ text: SAMPLE_DATA, type: 'xml' }));
              else if (v) void load(v, () => readSample(v));
            }}
          >
            <option value="">choose…</option>
            <option value="builtin">built-in data sheet sample</option>
            {samples.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        )}
      </Field>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          if (ticket) void load(`the input of ticket ${ticket}`, () => ticketInput(project, ticket.trim()));
        }}
      >
        <label>
          Ticket input
          <input value={ticket} onInput={(e) => setTicket(e.currentTarget.value)} size={14} placeholder="ticket id" />
        </label>
        <button type="submit">Load input</button>
      </form>
    </div>
  );
}
