import { api } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useLoad } from '../../components/hooks';
import type { ProjectAccess } from '../../state/session';

const MAX_PAGES = 24;
const WIDTH = 160;

/** Small PNGs of the first pages of a PDF, drawn in the browser by pdf.js (loaded only here). */
async function drawPages(pdf: ArrayBuffer): Promise<{ pages: string[]; total: number }> {
  const [pdfjs, worker] = await Promise.all([import('pdfjs-dist'), import('pdfjs-dist/build/pdf.worker.min.mjs?url')]);
  pdfjs.GlobalWorkerOptions.workerSrc = worker.default;
  const doc = await pdfjs.getDocument({ data: pdf, isEvalSupported: false }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, MAX_PAGES); n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: (WIDTH * devicePixelRatio) / page.getViewport({ scale: 1 }).width });
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(viewport.width);
      canvas.height = Math.ceil(viewport.height);
      await page.render({ canvas, viewport }).promise;
      pages.push(canvas.toDataURL('image/png'));
    }
    return { pages, total: doc.numPages };
  } finally {
    await doc.destroy();
  }
}

/** Page thumbnails of the ticket's PDF (the artifact endpoint, which does not mark it shipped). */
export function Thumbnails({ project, ticket }: { project: ProjectAccess; ticket: string }) {
  const { data, error } = useLoad(async (signal) => {
    const r = await api.GET('/rest/tenants/{tenant}/projects/{project}/tickets/{ticket}/artifact', {
      params: { path: { tenant: project.tenant, project: project.project, ticket } },
      headers: { accept: 'application/pdf' },
      parseAs: 'arrayBuffer',
      signal,
    });
    if (!r.response.ok) throw new ApiError(r.response.status, { message: `the PDF could not be read (HTTP ${r.response.status})` });
    return drawPages(r.data as unknown as ArrayBuffer);
  }, ticket);
  return (
    <section aria-labelledby="pages">
      <h2 id="pages">Pages</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {!data && !error && <p>Drawing pages…</p>}
      {data && (
        <ol class="thumbs">
          {data.pages.map((src, i) => (
            <li key={i}>
              <img src={src} alt={`Page ${i + 1} of ${data.total}`} width={WIDTH} />
            </li>
          ))}
        </ol>
      )}
      {data && data.total > data.pages.length && <p>…and {data.total - data.pages.length} more pages.</p>}
    </section>
  );
}
