// The theme of the built-in master: colours, fonts and the format scheme every theme must have.
// Arial is used for both font slots because every office suite has it or a metric-compatible
// substitute (Liberation Sans in LibreOffice), so text lays out the same everywhere.

const COLOURS: [string, string][] = [
  ['dk1', '000000'],
  ['lt1', 'FFFFFF'],
  ['dk2', '1F2A44'],
  ['lt2', 'E7E6E6'],
  ['accent1', '1F6FB2'],
  ['accent2', 'ED7D31'],
  ['accent3', '7F8C8D'],
  ['accent4', 'F2B705'],
  ['accent5', '4BA3C3'],
  ['accent6', '5BA55B'],
  ['hlink', '0563C1'],
  ['folHlink', '954F72'],
];

const fonts = (kind: string) => `<a:${kind}><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:${kind}>`;
const solid = (mod = '') => `<a:solidFill><a:schemeClr val="phClr">${mod}</a:schemeClr></a:solidFill>`;
const line = (w: number) => `<a:ln w="${w}" cap="flat" cmpd="sng" algn="ctr">${solid()}<a:prstDash val="solid"/><a:miter lim="800000"/></a:ln>`;

/** theme1.xml of the built-in master. */
export function themeXml(): string {
  const colours = COLOURS.map(([name, rgb]) => `<a:${name}><a:srgbClr val="${rgb}"/></a:${name}>`).join('');
  return (
    '<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="pressroom">' +
    '<a:themeElements>' +
    `<a:clrScheme name="pressroom">${colours}</a:clrScheme>` +
    `<a:fontScheme name="pressroom">${fonts('majorFont')}${fonts('minorFont')}</a:fontScheme>` +
    '<a:fmtScheme name="pressroom">' +
    `<a:fillStyleLst>${solid()}${solid('<a:tint val="50000"/>')}${solid('<a:shade val="80000"/>')}</a:fillStyleLst>` +
    `<a:lnStyleLst>${line(6350)}${line(12700)}${line(19050)}</a:lnStyleLst>` +
    '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>' +
    `<a:bgFillStyleLst>${solid()}${solid('<a:tint val="95000"/>')}${solid('<a:shade val="90000"/>')}</a:bgFillStyleLst>` +
    '</a:fmtScheme>' +
    '</a:themeElements>' +
    '<a:objectDefaults/><a:extraClrSchemeLst/>' +
    '</a:theme>'
  );
}
