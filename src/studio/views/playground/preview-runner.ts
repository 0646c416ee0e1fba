// Live preview: after each edit (debounced a little), compile through the preview API. A newer
// edit aborts the request still on its way (the service drops a preview whose client went
// away), so the latest text is sent at once instead of waiting for a stale compile. An answer
// is decoded and shown while the next request may already be on its way (decoding a page's SVG
// takes about as long as compiling it), and an answer older than the one shown is dropped.
import { api } from '../../api/client';
import type { Diagnostic } from '../../api/pending';
import { busy, compileMs, data, dataType, diagnostics, pages, previewError, template, type PreviewPage } from '../../state/playground';
import type { ProjectAccess } from '../../state/session';

const DEBOUNCE_MS = 25;

let timer: ReturnType<typeof setTimeout> | undefined;
/** The request on its way, aborted when a newer text is sent. */
let inflight: AbortController | null = null;
/** Requests sent, the newest answer shown (by send order), answers being decoded. */
let sent = 0;
let shown = 0;
let decoding = 0;
let project: ProjectAccess | null = null;

/** Compile the current editors' content soon (called on every change). */
export function schedulePreview(p: ProjectAccess): void {
  project = p;
  clearTimeout(timer);
  timer = setTimeout(() => void run(), DEBOUNCE_MS);
}

/** Turns SVG pages into object URLs and waits until the browser has decoded them, so they show at once. */
async function toPages(list: { index: number; width: number; height: number; svg?: string; text: string }[]): Promise<PreviewPage[]> {
  const out = list.map((p) => ({ index: p.index, width: p.width, height: p.height, text: p.text, url: URL.createObjectURL(new Blob([p.svg ?? ''], { type: 'image/svg+xml' })) }));
  await Promise.all(
    out.map(async (p) => {
      const img = new Image();
      img.src = p.url;
      await img.decode().catch(() => {});
    }),
  );
  return out;
}

function show(next: PreviewPage[]): void {
  const old = pages.value;
  pages.value = next;
  // Revoked after the new images have replaced the old ones in the page.
  setTimeout(() => old.forEach((p) => URL.revokeObjectURL(p.url)), 1000);
}

async function run(): Promise<void> {
  const p = project;
  if (!p) return;
  inflight?.abort();
  const controller = new AbortController();
  inflight = controller;
  busy.value = true;
  const mine = ++sent;
  // What the answer changes on screen, applied unless a newer answer is already shown.
  let apply: () => Promise<void>;
  const settle = (fn: () => void) => async () => {
    if (mine < shown) return;
    shown = mine;
    fn();
  };
  try {
    const r = await api.POST('/rest/tenants/{tenant}/projects/{project}/preview', {
      params: { path: { tenant: p.tenant, project: p.project } },
      body: { template: template.value, data: data.value, dataType: dataType.value, format: 'svg' },
      signal: controller.signal,
    });
    if (r.response.ok && r.data) {
      const answer = r.data;
      apply = async () => {
        const next = await toPages(answer.pages);
        if (mine < shown) return next.forEach((page) => URL.revokeObjectURL(page.url));
        shown = mine;
        show(next);
        compileMs.value = answer.compileMs;
        diagnostics.value = [];
        previewError.value = null;
      };
    } else {
      const body = (r.error ?? {}) as { message?: string; diagnostics?: Diagnostic[] };
      const status = r.response.status;
      apply = settle(() => {
        if (status === 422 && body.diagnostics?.length) {
          diagnostics.value = body.diagnostics;
          previewError.value = null;
        } else {
          diagnostics.value = [];
          const prefix = status === 504 ? 'Stopped at the time limit' : status === 413 ? 'Too large to preview' : status === 401 ? 'Signed out' : `Preview failed (HTTP ${status})`;
          previewError.value = `${prefix}: ${body.message ?? 'no details'}`;
        }
      });
    }
  } catch (err) {
    // Superseded by a newer text: its own request shows the answer.
    if (controller.signal.aborted) return;
    apply = settle(() => (previewError.value = `The preview could not reach the service: ${err instanceof Error ? err.message : String(err)}`));
  } finally {
    if (inflight === controller) inflight = null;
    busy.value = inflight !== null || decoding > 0;
  }
  decoding++;
  try {
    await apply();
  } finally {
    decoding--;
    busy.value = inflight !== null || decoding > 0;
  }
}
