// Namespace URIs, relationship types and content types of the parts pressroom reads or writes.

export const NS = {
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  p: 'http://schemas.openxmlformats.org/presentationml/2006/main',
  rels: 'http://schemas.openxmlformats.org/package/2006/relationships',
  ct: 'http://schemas.openxmlformats.org/package/2006/content-types',
} as const;

/** The declarations every slide-like part pressroom writes carries. */
export const PML_NAMESPACES = { 'xmlns:a': NS.a, 'xmlns:r': NS.r, 'xmlns:p': NS.p } as const;

const OD = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const REL = {
  officeDocument: `${OD}/officeDocument`,
  slide: `${OD}/slide`,
  slideLayout: `${OD}/slideLayout`,
  slideMaster: `${OD}/slideMaster`,
  notesSlide: `${OD}/notesSlide`,
  notesMaster: `${OD}/notesMaster`,
  theme: `${OD}/theme`,
  image: `${OD}/image`,
  hyperlink: `${OD}/hyperlink`,
  presProps: `${OD}/presProps`,
  viewProps: `${OD}/viewProps`,
  tableStyles: `${OD}/tableStyles`,
  coreProps: 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
  extendedProps: `${OD}/extended-properties`,
} as const;

const PML = 'application/vnd.openxmlformats-officedocument.presentationml';
export const CT = {
  presentation: `${PML}.presentation.main+xml`,
  slide: `${PML}.slide+xml`,
  slideLayout: `${PML}.slideLayout+xml`,
  slideMaster: `${PML}.slideMaster+xml`,
  notesSlide: `${PML}.notesSlide+xml`,
  notesMaster: `${PML}.notesMaster+xml`,
  presProps: `${PML}.presProps+xml`,
  viewProps: `${PML}.viewProps+xml`,
  tableStyles: `${PML}.tableStyles+xml`,
  theme: 'application/vnd.openxmlformats-officedocument.theme+xml',
  rels: 'application/vnd.openxmlformats-package.relationships+xml',
  core: 'application/vnd.openxmlformats-package.core-properties+xml',
  app: 'application/vnd.openxmlformats-officedocument.extended-properties+xml',
} as const;

/** DrawingML lengths are in EMU (English Metric Units). */
export const EMU_PER_INCH = 914400;
export const EMU_PER_POINT = 12700;
