// The playground's work, kept at module level: leaving the view, or a 401 that sends the user
// to sign in, loses nothing; signing in again shows the same editors.
import { signal } from '@preact/signals';
import type { Diagnostic } from '../api/pending';
import sample from '../samples/datasheet.xml?raw';
import builtinDefault from '../../../templates/typst/default.typ?raw';

export type DataType = 'xml' | 'json';

export interface PreviewPage {
  index: number;
  width: number;
  height: number;
  /** Object URL of the page's SVG. */
  url: string;
  text: string;
}

/** The built-in `default` master document (templates/typst/default.typ), as built into this Studio. */
export const BUILTIN_DEFAULT = builtinDefault;
export const SAMPLE_DATA = sample;

export const templateName = signal('default');
export const template = signal(BUILTIN_DEFAULT);
/** The template text last opened or saved, to tell unsaved changes. */
export const savedTemplate = signal<string | null>(null);
export const data = signal(SAMPLE_DATA);
export const dataType = signal<DataType>('xml');
/** What the editors were last loaded from (template and data), to avoid loading twice. */
export const loadedFrom = signal<string | null>(null);

export const pages = signal<PreviewPage[]>([]);
export const diagnostics = signal<Diagnostic[]>([]);
/** A failure that is not a compile error (time limit, size, access), shown as an alert. */
export const previewError = signal<string | null>(null);
export const compileMs = signal<number | null>(null);
export const busy = signal(false);
