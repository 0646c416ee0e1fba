// The part of the SaxonJS 2 API that the sandbox uses. saxon-js ships no type declarations;
// these describe what SaxonJS2N.js 2.7 exposes, including the internals its own `xslt3`
// command line uses to compile XSLT into a SEF.

/** A node of a compiled stylesheet (SEF, "stylesheet export file", in its JSON form). */
export interface SefNode {
  N: string;
  C?: SefNode[];
  parentNode?: SefNode;
  [property: string]: unknown;
}

/** A DOM document as SaxonJS builds it. */
export interface SaxonDocument {
  _saxonBaseUri?: string;
  _saxonDocUri?: string;
  firstChild: unknown;
}

/** An XPath map, used for stylesheet and compiler parameters. */
export interface SaxonXdmMap {
  inSituPut(key: unknown, value: unknown[]): void;
}

/** The error SaxonJS throws; `code` is an EQName such as `Q{http://www.w3.org/2005/xqt-errors}XTSE0010`. */
export interface SaxonError extends Error {
  code?: string;
  xsltLineNr?: number | string;
  xsltModule?: string | null;
  errorObject?: unknown;
}

/** What `deliverResultDocument` must return: where results go and how they are saved. */
export interface SaxonResultTarget {
  destination: 'serialized';
  save(uri: unknown, text: string, encoding?: string): void;
}

/** The Node.js platform object behind SaxonJS; its methods are looked up on each use. */
export interface SaxonPlatform {
  parseXmlFromString(text: string): SaxonDocument;
  resource(name: 'compiler'): SefNode;
  readFile: (...args: unknown[]) => unknown;
  writeFileSync: (...args: unknown[]) => unknown;
  writeFileAsync: (...args: unknown[]) => unknown;
  resourcePromise: (...args: unknown[]) => unknown;
  makeHttpRequest: (...args: unknown[]) => unknown;
  /** The object `js:` functions and `ixsl:window()` reach. */
  globalObject: unknown;
}

/** The SaxonJS module object. */
export interface SaxonApi {
  getPlatform(): SaxonPlatform;
  transform(options: Record<string, unknown>, mode: 'sync'): { principalResult?: unknown };
  checkOptions(options: Record<string, unknown>): { principalResult?: unknown };
  internalTransform(stylesheet: SefNode, source: unknown, options: unknown): void;
  XPath: {
    evaluate(expression: string, context: unknown, options?: Record<string, unknown>): unknown;
    sefToJSON(node: unknown, withChecksum: boolean): SefNode;
  };
  XdmMap: new () => SaxonXdmMap;
  XS: {
    QName: { fromParts(prefix: string, uri: string, local: string): unknown };
    untypedAtomic: { fromString(value: string): unknown };
  };
  XError: new (message: string, code: string) => SaxonError;
}
