import { busy, compileMs, diagnostics, pages, previewError } from '../../state/playground';
import { isTemplateFile } from './template-files';

/** The pages as images whose accessible name is the page's text; the problems as `line:column message`. */
export function Preview() {
  const problems = diagnostics.value;
  return (
    <div class="preview-pane">
      <div class="preview-status" role="status">
        {busy.value ? 'Compiling…' : problems.length ? `${problems.length} problem${problems.length > 1 ? 's' : ''}` : compileMs.value !== null ? `Compiled in ${Math.round(compileMs.value)} ms` : ''}
      </div>
      {previewError.value && (
        <p role="alert" class="error">
          {previewError.value}
        </p>
      )}
      {problems.length > 0 && (
        <ol class="problems" aria-label="Problems">
          {problems.map((d, i) => (
            <li key={i} class={d.severity}>
              {isTemplateFile(d.file) ? '' : `${d.file} `}
              {d.line}:{d.column} {d.message}
            </li>
          ))}
        </ol>
      )}
      <section class="preview" aria-label="Preview" aria-busy={busy.value}>
        {pages.value.map((p) => (
          <figure key={p.url} class="page">
            <img src={p.url} alt={p.text.trim() || `Page ${p.index} (no text)`} style={{ aspectRatio: `${p.width} / ${p.height}` }} />
            <figcaption>Page {p.index}</figcaption>
          </figure>
        ))}
      </section>
    </div>
  );
}
