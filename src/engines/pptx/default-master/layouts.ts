// The slide master and the layouts of the built-in deck, as XML text. Placeholder names
// are short and stable ("Title", "Content", "Left Content", …) because fields can name them.
import { escapeAttr } from '../xml.js';

export const NAMESPACES =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';

/** Widescreen 16:9, 13.333 × 7.5 in. */
export const SLIDE_SIZE = { cx: 12192000, cy: 6858000 };

type Box = [x: number, y: number, cx: number, cy: number];

/** One placeholder of a master or layout. */
export interface PlaceholderDef {
  name: string;
  /** ST_PlaceholderType; absent means obj (content). */
  type?: string;
  idx?: number;
  sz?: 'half' | 'quarter';
  /** Absent: the position is inherited from the master. */
  box?: Box;
  /** Extra a:bodyPr attributes, e.g. anchor="b". */
  bodyPr?: string;
  /** a:lstStyle content overriding the master's text style for this placeholder. */
  lstStyle?: string;
  prompt?: string;
}

export interface LayoutDef {
  name: string;
  type: string;
  placeholders: PlaceholderDef[];
}

/** A placeholder shape with the given shape id. */
export function placeholderXml(p: PlaceholderDef, id: number): string {
  const ph = `<p:ph${p.type ? ` type="${p.type}"` : ''}${p.sz ? ` sz="${p.sz}"` : ''}${p.idx !== undefined ? ` idx="${p.idx}"` : ''}/>`;
  const xfrm = p.box ? `<a:xfrm><a:off x="${p.box[0]}" y="${p.box[1]}"/><a:ext cx="${p.box[2]}" cy="${p.box[3]}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom>` : '';
  const text = p.prompt ? `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p.prompt}</a:t></a:r></a:p>` : '<a:p><a:endParaRPr lang="en-US"/></a:p>';
  const field = p.type === 'sldNum' ? '<a:p><a:fld id="{B6F15528-21DE-4FAA-801E-634DDDAF4B2B}" type="slidenum"><a:rPr lang="en-US"/><a:t>‹#›</a:t></a:fld></a:p>' : text;
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${escapeAttr(p.name)}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>${ph}</p:nvPr></p:nvSpPr>` +
    `<p:spPr>${xfrm}</p:spPr><p:txBody><a:bodyPr${p.bodyPr ? ` ${p.bodyPr}` : ''}/><a:lstStyle>${p.lstStyle ?? ''}</a:lstStyle>${field}</p:txBody></p:sp>`
  );
}

/** The group header that opens every shape tree. */
export const TREE_HEADER =
  '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>';

const FOOTERS: PlaceholderDef[] = [
  { name: 'Date', type: 'dt', sz: 'half', idx: 10 },
  { name: 'Footer', type: 'ftr', sz: 'quarter', idx: 11 },
  { name: 'Slide Number', type: 'sldNum', sz: 'quarter', idx: 12 },
];
const noBullets = (size: number, extra = '') => `<a:lvl1pPr marL="0" indent="0" algn="l"><a:buNone/><a:defRPr sz="${size}">${extra}</a:defRPr></a:lvl1pPr>`;
const centred = (size: number) => `<a:lvl1pPr marL="0" indent="0" algn="ctr"><a:buNone/><a:defRPr sz="${size}"/></a:lvl1pPr>`;
const grey = '<a:solidFill><a:schemeClr val="tx1"><a:lumMod val="65000"/><a:lumOff val="35000"/></a:schemeClr></a:solidFill>';
const TITLE: PlaceholderDef = { name: 'Title', type: 'title', prompt: 'Click to edit title' };
const CONTENT = 'Click to add text';

/** The layouts of the built-in master, in the order PowerPoint lists its own. */
export const LAYOUTS: LayoutDef[] = [
  {
    name: 'Title Slide',
    type: 'title',
    placeholders: [
      { name: 'Title', type: 'ctrTitle', box: [1524000, 1122363, 9144000, 2387600], bodyPr: 'anchor="b"', lstStyle: '<a:lvl1pPr algn="ctr"><a:defRPr sz="5400"/></a:lvl1pPr>', prompt: 'Click to edit title' },
      { name: 'Subtitle', type: 'subTitle', idx: 1, box: [1524000, 3602038, 9144000, 1655762], lstStyle: centred(2400), prompt: 'Click to edit subtitle' },
      ...FOOTERS,
    ],
  },
  { name: 'Title and Content', type: 'obj', placeholders: [TITLE, { name: 'Content', idx: 1, prompt: CONTENT }, ...FOOTERS] },
  { name: 'Section Header', type: 'secHead', placeholders: [
    { name: 'Title', type: 'title', box: [831850, 1709738, 10515600, 2852737], bodyPr: 'anchor="b"', lstStyle: '<a:lvl1pPr><a:defRPr sz="5400"/></a:lvl1pPr>', prompt: 'Click to edit section title' },
    { name: 'Text', type: 'body', idx: 1, box: [831850, 4589463, 10515600, 1500187], lstStyle: noBullets(2400, grey), prompt: CONTENT },
    ...FOOTERS,
  ] },
  {
    name: 'Two Content',
    type: 'twoObj',
    placeholders: [
      TITLE,
      { name: 'Left Content', sz: 'half', idx: 1, box: [838200, 1825625, 5181600, 4351338], prompt: CONTENT },
      { name: 'Right Content', sz: 'half', idx: 2, box: [6172200, 1825625, 5181600, 4351338], prompt: CONTENT },
      ...FOOTERS,
    ],
  },
  { name: 'Title Only', type: 'titleOnly', placeholders: [TITLE, ...FOOTERS] },
  {
    name: 'Picture with Caption',
    type: 'picTx',
    placeholders: [
      { name: 'Title', type: 'title', box: [839788, 457200, 3932237, 1600200], bodyPr: 'anchor="b"', lstStyle: '<a:lvl1pPr><a:defRPr sz="3200"/></a:lvl1pPr>', prompt: 'Click to edit title' },
      { name: 'Picture', type: 'pic', idx: 1, box: [5183188, 987425, 6172200, 4873625], lstStyle: noBullets(3200), prompt: 'Click to add a picture' },
      { name: 'Caption', type: 'body', sz: 'half', idx: 2, box: [839788, 2057400, 3932237, 3811588], lstStyle: noBullets(1600), prompt: CONTENT },
      ...FOOTERS,
    ],
  },
  { name: 'Blank', type: 'blank', placeholders: [...FOOTERS] },
];

const level = (n: number, marL: number, size: number) =>
  `<a:lvl${n}pPr marL="${marL}" indent="-228600" algn="l" rtl="0"><a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPts val="${n === 1 ? 1000 : 500}"/></a:spcBef><a:buFont typeface="Arial"/><a:buChar char="•"/><a:defRPr sz="${size}" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl${n}pPr>`;
const BODY_SIZES = [2800, 2400, 2000, 1800, 1800, 1800, 1800, 1800, 1800];
const plainLevels = Array.from({ length: 9 }, (_, i) => `<a:lvl${i + 1}pPr marL="${i * 457200}" algn="l" rtl="0"><a:defRPr sz="1800" kern="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/><a:ea typeface="+mn-ea"/><a:cs typeface="+mn-cs"/></a:defRPr></a:lvl${i + 1}pPr>`).join('');

/** Text styles of the master: titles, bulleted body text with nine levels, other text. */
export const TEXT_STYLES =
  '<p:txStyles>' +
  '<p:titleStyle><a:lvl1pPr algn="l" rtl="0"><a:lnSpc><a:spcPct val="90000"/></a:lnSpc><a:spcBef><a:spcPct val="0"/></a:spcBef><a:buNone/><a:defRPr sz="4000" kern="1200"><a:solidFill><a:schemeClr val="tx2"/></a:solidFill><a:latin typeface="+mj-lt"/><a:ea typeface="+mj-ea"/><a:cs typeface="+mj-cs"/></a:defRPr></a:lvl1pPr></p:titleStyle>' +
  `<p:bodyStyle>${BODY_SIZES.map((size, i) => level(i + 1, 228600 + i * 457200, size)).join('')}</p:bodyStyle>` +
  `<p:otherStyle>${plainLevels}</p:otherStyle>` +
  '</p:txStyles>';

/** The master's own placeholders (positions every layout inherits) and its accent bar. */
export const MASTER_SHAPES: PlaceholderDef[] = [
  { name: 'Title', type: 'title', box: [838200, 365125, 10515600, 1325563], bodyPr: 'anchor="ctr"', prompt: 'Click to edit title' },
  { name: 'Text', type: 'body', idx: 1, box: [838200, 1825625, 10515600, 4351338], prompt: CONTENT },
  { name: 'Date', type: 'dt', sz: 'half', idx: 2, box: [838200, 6356350, 2743200, 365125], lstStyle: noBullets(1200, grey) },
  { name: 'Footer', type: 'ftr', sz: 'quarter', idx: 3, box: [4038600, 6356350, 4114800, 365125], lstStyle: centred(1200) },
  { name: 'Slide Number', type: 'sldNum', sz: 'quarter', idx: 4, box: [8610600, 6356350, 2743200, 365125], lstStyle: '<a:lvl1pPr algn="r"><a:defRPr sz="1200"/></a:lvl1pPr>' },
];

/** A thin bar in the theme's first accent colour along the bottom edge. */
export const ACCENT_BAR =
  '<p:sp><p:nvSpPr><p:cNvPr id="20" name="Accent Bar"/><p:cNvSpPr/><p:nvPr userDrawn="1"/></p:nvSpPr>' +
  `<p:spPr><a:xfrm><a:off x="0" y="${SLIDE_SIZE.cy - 91440}"/><a:ext cx="${SLIDE_SIZE.cx}" cy="91440"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:solidFill><a:schemeClr val="accent1"/></a:solidFill><a:ln><a:noFill/></a:ln></p:spPr></p:sp>`;
