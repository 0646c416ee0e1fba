// The input format, parsed: what docs/pptx.md and docs/pptx-input.xsd describe.

/** Character formatting of a run; unset properties inherit from the shape. */
export interface RunStyle {
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  /** `RRGGBB`, upper case. */
  color?: string;
  /** Points. */
  size?: number;
  font?: string;
  href?: string;
}

export type Inline = { kind: 'text'; text: string; style: RunStyle } | { kind: 'br'; style: RunStyle };

export type Bullet = 'none' | 'disc' | 'number';
export type Align = 'left' | 'center' | 'right' | 'justify';

export interface Paragraph {
  /** 0-based indent level (the input's `level` minus one). */
  level?: number;
  bullet?: Bullet;
  align?: Align;
  inlines: Inline[];
}

export interface TextContent {
  kind: 'text';
  paragraphs: Paragraph[];
}

export interface ImageContent {
  kind: 'image';
  src: string;
  /** `contain`: whole image inside the box; `cover`: box filled, the image cropped. */
  fit: 'contain' | 'cover';
  alt?: string;
}

export interface TableCell {
  paragraphs: Paragraph[];
}

export interface TableContent {
  kind: 'table';
  header?: TableCell[];
  rows: TableCell[][];
  /** Relative column widths; equal when absent. */
  widths?: number[];
  /** Points; used for the text and for the row-height estimate. */
  fontSize: number;
  /** What happens to rows that do not fit the target: `continue` on copies of the slide, or `error`. */
  overflow: 'continue' | 'error';
  /** A table style id (GUID); without it pressroom formats the cells itself. */
  style?: string;
}

export type FieldContent = TextContent | ImageContent | TableContent;

/** `<field name=…>`: content for the shape(s) the mapping rules find for `key`. */
export interface FieldSpec {
  key: string;
  optional: boolean;
  content: FieldContent;
}

/** `<slide>`: made from a layout or cloned from a master slide, then filled. */
export interface SlideSpec {
  layout?: string;
  clone?: string;
  name?: string;
  /** Undefined: as the layout or cloned slide has it. */
  hidden?: boolean;
  fields: FieldSpec[];
  notes?: Paragraph[];
  /** 1-based position among the input's slides, for messages. */
  number: number;
}
