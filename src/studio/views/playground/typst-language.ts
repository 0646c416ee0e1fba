// Typst highlighting for CodeMirror. No maintained CodeMirror mode for Typst exists (the one
// package is an experimental WebAssembly build of the compiler's parser), so this is a small
// stream tokenizer: markup, code after `#`, strings, comments, math, raw, labels, headings.
import { StreamLanguage, type StreamParser } from '@codemirror/language';

interface State {
  blockComment: boolean;
  math: boolean;
  /** Code mode after `#` lasts until the end of the expression; approximated by brackets. */
  codeDepth: number;
}

const keywords = new Set(['let', 'set', 'show', 'import', 'include', 'if', 'else', 'for', 'in', 'while', 'return', 'break', 'continue', 'context', 'none', 'auto', 'true', 'false', 'and', 'or', 'not', 'as']);

const parser: StreamParser<State> = {
  name: 'typst',
  startState: () => ({ blockComment: false, math: false, codeDepth: 0 }),
  token(stream, state) {
    if (state.blockComment) {
      if (stream.skipTo('*/')) {
        stream.match('*/');
        state.blockComment = false;
      } else stream.skipToEnd();
      return 'comment';
    }
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match('/*')) {
      state.blockComment = true;
      return 'comment';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return 'string';
    if (stream.match(/^`[^`]*`?/)) return 'string.special';
    if (stream.peek() === '$') {
      stream.next();
      state.math = !state.math;
      return 'keyword';
    }
    if (state.math) {
      stream.next();
      return 'string.special';
    }
    const inCode = state.codeDepth > 0;
    if (stream.match(/^#[A-Za-z_][\w-]*/)) {
      const word = stream.current().slice(1);
      return keywords.has(word) ? 'keyword' : 'function';
    }
    if (inCode && stream.match(/^[A-Za-z_][\w-]*/)) {
      const word = stream.current();
      if (keywords.has(word)) return 'keyword';
      return stream.peek() === '(' ? 'function' : 'variableName';
    }
    if (stream.match(/^\d+(?:\.\d+)?(?:pt|mm|cm|in|em|%|fr|deg|rad)?/)) return inCode ? 'number' : null;
    const ch = stream.next();
    if (ch === '(' || ch === '{') state.codeDepth++;
    else if ((ch === ')' || ch === '}') && state.codeDepth > 0) state.codeDepth--;
    if (ch === '[' && state.codeDepth > 0) state.codeDepth = 0;
    if (!inCode) {
      if (ch === '=' && stream.column() === 0) {
        stream.skipToEnd();
        return 'heading';
      }
      if (ch === '<' && stream.match(/^[\w.:-]+>/)) return 'labelName';
      if (ch === '@' && stream.match(/^[\w.:-]+/)) return 'labelName';
      if (ch === '*') return 'strong';
      if (ch === '_') return 'emphasis';
      if ((ch === '-' || ch === '+') && stream.column() === stream.indentation()) return 'list';
    }
    return null;
  },
  languageData: { commentTokens: { line: '//', block: { open: '/*', close: '*/' } } },
};

export const typst = StreamLanguage.define(parser);
