/** Inclusive page range, 1-based; null stands for `n`, the last page of the document. */
export interface PageRange {
  from: number | null;
  to: number | null;
}

/** Which pages to convert: one page (error when missing) or a set (missing pages skipped). */
export type PageSelection = { kind: 'page'; page: number } | { kind: 'pageset'; ranges: PageRange[] };

/** The 1-based pages a selection names in a document of `count` pages, ascending, each once. */
export function selectPages(pages: PageSelection, count: number): number[] {
  if (pages.kind === 'page') return pages.page <= count ? [pages.page] : [];
  const wanted = new Set<number>();
  for (const r of pages.ranges) {
    const to = Math.min(r.to ?? count, count);
    for (let p = r.from ?? count; p <= to; p++) wanted.add(p);
  }
  return [...wanted].sort((a, b) => a - b);
}
