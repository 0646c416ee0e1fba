// Generates the built-in master deck (templates/pptx/default.pptx) from code, so the
// repository holds no binary of unknown origin. scripts/build-default-pptx.ts writes it;
// tests build variants with slides of their own.
import { escapeAttr } from '../xml.js';
import { writeZip } from '../zip-write.js';
import { ACCENT_BAR, LAYOUTS, MASTER_SHAPES, NAMESPACES, SLIDE_SIZE, TEXT_STYLES, TREE_HEADER, placeholderXml } from './layouts.js';
import { themeXml } from './theme.js';

/** A slide of a generated master (tests use these as clone sources). */
export interface MasterSlideDef {
  /** Name of the layout the slide uses. */
  layout: string;
  /** p:cSld/@name. */
  name?: string;
  /** Shape tree content after the group header: raw p:sp / p:pic / p:graphicFrame XML. */
  shapes: string;
  /** Extra relationships of the slide: [id, type, target relative to ppt/slides/]. */
  rels?: [string, string, string][];
}

export interface MasterOptions {
  slides?: MasterSlideDef[];
  /** Extra parts (media of the slides' rels), by package path. */
  parts?: Record<string, Buffer>;
}

const REL_BASE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PML = 'application/vnd.openxmlformats-officedocument.presentationml';
const DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n';
const CLR_MAP = 'bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"';

const rels = (list: [string, string, string, boolean?][]) =>
  `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${list
    .map(([id, type, target, external]) => `<Relationship Id="${id}" Type="${type.startsWith('http') ? type : `${REL_BASE}/${type}`}" Target="${escapeAttr(target)}"${external ? ' TargetMode="External"' : ''}/>`)
    .join('')}</Relationships>`;

function shapes(defs: typeof MASTER_SHAPES): string {
  return defs.map((p, i) => placeholderXml(p, i + 2)).join('');
}

/** The parts of the deck, by name, with their content types (undefined: by extension). */
function parts(options: MasterOptions): [string, string | Buffer, string?][] {
  const slides = options.slides ?? [];
  const out: [string, string | Buffer, string?][] = [];
  const layoutIds = LAYOUTS.map((_, i) => `<p:sldLayoutId id="${2147483649 + i}" r:id="rId${i + 1}"/>`).join('');
  out.push([
    'ppt/slideMasters/slideMaster1.xml',
    `<p:sldMaster ${NAMESPACES}><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>${TREE_HEADER}${shapes(MASTER_SHAPES)}${ACCENT_BAR}</p:spTree></p:cSld>` +
      `<p:clrMap ${CLR_MAP}/><p:sldLayoutIdLst>${layoutIds}</p:sldLayoutIdLst>${TEXT_STYLES}</p:sldMaster>`,
    `${PML}.slideMaster+xml`,
  ]);
  out.push(['ppt/slideMasters/_rels/slideMaster1.xml.rels', rels([...LAYOUTS.map((_, i): [string, string, string] => [`rId${i + 1}`, 'slideLayout', `../slideLayouts/slideLayout${i + 1}.xml`]), [`rId${LAYOUTS.length + 1}`, 'theme', '../theme/theme1.xml']])]);
  LAYOUTS.forEach((l, i) => {
    out.push([
      `ppt/slideLayouts/slideLayout${i + 1}.xml`,
      `<p:sldLayout ${NAMESPACES} type="${l.type}" preserve="1"><p:cSld name="${escapeAttr(l.name)}"><p:spTree>${TREE_HEADER}${shapes(l.placeholders)}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
      `${PML}.slideLayout+xml`,
    ]);
    out.push([`ppt/slideLayouts/_rels/slideLayout${i + 1}.xml.rels`, rels([['rId1', 'slideMaster', '../slideMasters/slideMaster1.xml']])]);
  });
  slides.forEach((s, i) => {
    const layout = LAYOUTS.findIndex((l) => l.name === s.layout);
    if (layout < 0) throw new Error(`no layout "${s.layout}" in the built-in master`);
    out.push([
      `ppt/slides/slide${i + 1}.xml`,
      `<p:sld ${NAMESPACES}><p:cSld${s.name ? ` name="${escapeAttr(s.name)}"` : ''}><p:spTree>${TREE_HEADER}${s.shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`,
      `${PML}.slide+xml`,
    ]);
    out.push([`ppt/slides/_rels/slide${i + 1}.xml.rels`, rels([['rIdL', 'slideLayout', `../slideLayouts/slideLayout${layout + 1}.xml`], ...(s.rels ?? [])])]);
  });
  out.push(['ppt/theme/theme1.xml', themeXml(), 'application/vnd.openxmlformats-officedocument.theme+xml']);
  const slideIds = slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${10 + i}"/>`).join('');
  out.push([
    'ppt/presentation.xml',
    `<p:presentation ${NAMESPACES} saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>${slideIds ? `<p:sldIdLst>${slideIds}</p:sldIdLst>` : ''}` +
      `<p:sldSz cx="${SLIDE_SIZE.cx}" cy="${SLIDE_SIZE.cy}"/><p:notesSz cx="6858000" cy="9144000"/>` +
      '<p:defaultTextStyle><a:lvl1pPr marL="0" algn="l" rtl="0"><a:defRPr sz="1800" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl1pPr></p:defaultTextStyle></p:presentation>',
    `${PML}.presentation.main+xml`,
  ]);
  out.push([
    'ppt/_rels/presentation.xml.rels',
    rels([
      ['rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'],
      ['rId2', 'presProps', 'presProps.xml'],
      ['rId3', 'viewProps', 'viewProps.xml'],
      ['rId4', 'theme', 'theme/theme1.xml'],
      ['rId5', 'tableStyles', 'tableStyles.xml'],
      ...slides.map((_, i): [string, string, string] => [`rId${10 + i}`, 'slide', `slides/slide${i + 1}.xml`]),
    ]),
  ]);
  out.push(['ppt/presProps.xml', `<p:presentationPr ${NAMESPACES}/>`, `${PML}.presProps+xml`]);
  out.push(['ppt/viewProps.xml', `<p:viewPr ${NAMESPACES}><p:normalViewPr><p:restoredLeft sz="15620"/><p:restoredTop sz="94660"/></p:normalViewPr><p:gridSpacing cx="76200" cy="76200"/></p:viewPr>`, `${PML}.viewProps+xml`]);
  out.push(['ppt/tableStyles.xml', '<a:tblStyleLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>', `${PML}.tableStyles+xml`]);
  out.push([
    'docProps/core.xml',
    '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
      '<dc:title>pressroom default master</dc:title><dc:creator>pressroom</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">2025-01-01T00:00:00Z</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">2025-01-01T00:00:00Z</dcterms:modified></cp:coreProperties>',
    'application/vnd.openxmlformats-package.core-properties+xml',
  ]);
  out.push([
    'docProps/app.xml',
    `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>pressroom</Application><PresentationFormat>Widescreen</PresentationFormat><Slides>${slides.length}</Slides><Notes>0</Notes></Properties>`,
    'application/vnd.openxmlformats-officedocument.extended-properties+xml',
  ]);
  for (const [name, data] of Object.entries(options.parts ?? {})) out.push([name, data]);
  return out;
}

/** The built-in master deck as .pptx bytes (plus test slides when asked). */
export async function buildDefaultMaster(options: MasterOptions = {}): Promise<Buffer> {
  const list = parts(options);
  const overrides = list.filter(([, , type]) => type).map(([name, , type]) => `<Override PartName="/${name}" ContentType="${type}"/>`);
  const types =
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
    '<Default Extension="png" ContentType="image/png"/><Default Extension="jpeg" ContentType="image/jpeg"/>' +
    `${overrides.join('')}</Types>`;
  const rootRels = rels([
    ['rId1', 'officeDocument', 'ppt/presentation.xml'],
    ['rId2', 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties', 'docProps/core.xml'],
    ['rId3', 'extended-properties', 'docProps/app.xml'],
  ]);
  const xml = (s: string) => Buffer.from(DECL + s, 'utf8');
  return writeZip([
    { name: '[Content_Types].xml', data: xml(types), compress: true },
    { name: '_rels/.rels', data: xml(rootRels), compress: true },
    ...list.map(([name, data]) => ({ name, data: typeof data === 'string' ? xml(data) : data, compress: typeof data === 'string' })),
  ]);
}
