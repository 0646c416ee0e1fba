import { json } from '@codemirror/lang-json';
import { xml } from '@codemirror/lang-xml';
import { useLocation } from 'preact-iso';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeError } from '../../api/errors';
import { NeedsProject } from '../../components/needs-project';
import { data, dataType, diagnostics, loadedFrom, savedTemplate, template, templateName } from '../../state/playground';
import type { ProjectAccess } from '../../state/session';
import { CodeEditor } from './code-editor';
import { DataSources } from './data-sources';
import { Preview } from './preview';
import { schedulePreview } from './preview-runner';
import { isTemplateFile } from './template-files';
import { openTemplate, renderTicket, saveTemplate, ticketInput } from './template-io';
import { typst } from './typst-language';

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Template and data editors beside a live preview; Save and Render go through the real API. */
export function Playground() {
  return <NeedsProject title="Playground">{(p) => <Workbench project={p} />}</NeedsProject>;
}

function Workbench({ project }: { project: ProjectAccess }) {
  const { query, route } = useLocation();
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [nameDraft, setNameDraft] = useState(query.template ?? templateName.value);
  const xmlLang = useMemo(() => xml(), []);
  const jsonLang = useMemo(() => json(), []);
  const report = (text: string, error = false) => setMessage({ text, error });

  // The address says what to open: ?template=<name> and/or ?ticket=<id> (its input as data).
  const source = `${project.tenant}/${project.project}|${query.template ?? ''}|${query.ticket ?? ''}`;
  useEffect(() => {
    if (loadedFrom.value === source) return schedulePreview(project);
    loadedFrom.value = source;
    void (async () => {
      try {
        if (query.template && namePattern.test(query.template)) {
          const opened = await openTemplate(project, query.template);
          templateName.value = query.template;
          setNameDraft(query.template);
          template.value = opened.text;
          savedTemplate.value = opened.text;
          report(`Opened ${query.template} from ${opened.from}.`);
        }
        if (query.ticket) {
          const input = await ticketInput(project, query.ticket);
          data.value = input.text;
          dataType.value = input.type;
          report(`Loaded the input of ticket ${query.ticket}.`);
        }
      } catch (err) {
        report(describeError(err), true);
      }
      schedulePreview(project);
    })();
  }, [source]);

  const change = (set: (v: string) => void) => (v: string) => {
    set(v);
    schedulePreview(project);
  };

  async function open(e: Event) {
    e.preventDefault();
    if (!namePattern.test(nameDraft)) return report('A template name has letters, digits, - and _ only.', true);
    route(`/studio/playground?template=${encodeURIComponent(nameDraft)}`);
  }
  async function save() {
    if (!namePattern.test(nameDraft)) return report('A template name has letters, digits, - and _ only.', true);
    try {
      const path = await saveTemplate(project, nameDraft, template.value);
      templateName.value = nameDraft;
      savedTemplate.value = template.value;
      report(`Saved ${path}.`);
      route(`/studio/playground?template=${encodeURIComponent(nameDraft)}`, true);
      loadedFrom.value = `${project.tenant}/${project.project}|${nameDraft}|`;
    } catch (err) {
      report(describeError(err), true);
    }
  }
  async function render() {
    try {
      // The pipeline renders the stored template: unsaved edits are saved first.
      if (savedTemplate.value !== template.value || templateName.value !== nameDraft) await save();
      const ticket = await renderTicket(project, nameDraft, data.value, dataType.value);
      route(`/studio/tickets/${encodeURIComponent(ticket)}`);
    } catch (err) {
      report(describeError(err), true);
    }
  }

  const markers = diagnostics.value.filter((d) => isTemplateFile(d.file));
  return (
    <main id="main" tabIndex={-1} class="playground">
      <h1 class="visually-hidden">Playground</h1>
      <div class="toolbar">
        <form onSubmit={open} class="inline">
          <label>
            Template name
            <input value={nameDraft} onInput={(e) => setNameDraft(e.currentTarget.value)} pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" size={16} />
          </label>
          <button type="submit">Open</button>
        </form>
        <button type="button" onClick={save}>
          Save
        </button>
        <button type="button" onClick={render}>
          Render
        </button>
        {savedTemplate.value !== null && savedTemplate.value !== template.value && <span class="hint">unsaved changes</span>}
        {message && (
          <span role={message.error ? 'alert' : 'status'} class={message.error ? 'error' : 'notice'}>
            {message.text}
          </span>
        )}
      </div>
      <div class="panes">
        <section class="pane" aria-labelledby="template-heading">
          <h2 id="template-heading">Template</h2>
          <CodeEditor label="Template" value={template.value} onChange={change((v) => (template.value = v))} language={typst} markers={markers} />
        </section>
        <section class="pane" aria-labelledby="data-heading">
          <h2 id="data-heading">Data</h2>
          <DataSources project={project} onLoaded={(what) => (report(`Loaded ${what}.`), schedulePreview(project))} onError={(m) => report(m, true)} />
          <CodeEditor label="Data" value={data.value} onChange={change((v) => (data.value = v))} language={dataType.value === 'json' ? jsonLang : xmlLang} />
        </section>
        <Preview />
      </div>
    </main>
  );
}
