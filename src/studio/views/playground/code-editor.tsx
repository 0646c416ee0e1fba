// A CodeMirror 6 editor as a Preact component: line numbers, history, find (Ctrl-F), bracket
// matching, a diagnostics gutter. Tab is left to move focus (keyboard users can leave the editor).
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting, type LanguageSupport, type StreamLanguage } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

export interface Marker {
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

interface Props {
  /** The accessible name of the text box (role textbox). */
  label: string;
  value: string;
  onChange(value: string): void;
  language: LanguageSupport | StreamLanguage<unknown>;
  markers?: Marker[];
}

function toCm(state: EditorState, markers: Marker[]): CmDiagnostic[] {
  return markers.map((m) => {
    const line = state.doc.line(Math.min(Math.max(1, m.line), state.doc.lines));
    const from = Math.min(line.from + Math.max(0, m.column - 1), line.to);
    const word = /^[\w-]+/.exec(state.doc.sliceString(from, line.to))?.[0].length ?? 0;
    return { from, to: Math.min(line.to, from + Math.max(1, word)), severity: m.severity, message: m.message };
  });
}

export function CodeEditor({ label, value, onChange, language, markers = [] }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const languageSlot = useRef(new Compartment());

  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      search({ top: true }),
      lintGutter(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      languageSlot.current.of(language),
      keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorView.lineWrapping,
      EditorView.updateListener.of((u) => {
        if (u.docChanged) onChangeRef.current(u.state.doc.toString());
      }),
    ];
    view.current = new EditorView({ parent: host.current!, state: EditorState.create({ doc: value, extensions }) });
    return () => view.current?.destroy();
    // The editor is made once; value, language and markers follow in the effects below.
  }, []);

  // Text set from outside (a template opened, a file loaded) replaces the document. Compared in
  // a layout effect, in the same task as the render that read `value`: a plain effect runs after
  // paint, when the person may have typed on, and would put the older text back into the editor
  // (whose change then renders the next older one: the editor and the page ping-pong for ever).
  useLayoutEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);
  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(language) });
  }, [language]);
  // Markers are a new array on every render of the parent: set again only when they change.
  const markersKey = JSON.stringify(markers);
  useLayoutEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, toCm(v.state, markers)));
  }, [markersKey]);

  return <div class="editor" ref={host} />;
}
