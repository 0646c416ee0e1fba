const byExtension: Record<string, string> = {
  ion: 'application/ion',
  json: 'application/json',
  xml: 'application/xml',
  xsl: 'application/xslt+xml',
  xslt: 'application/xslt+xml',
  w2ml: 'application/xml',
  typ: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ttf: 'font/ttf',
  otf: 'font/otf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  pdf: 'application/pdf',
  zip: 'application/zip',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** The media type a repository file is served with, from its extension. */
export function contentTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && byExtension[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}
