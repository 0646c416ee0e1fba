/** Which stage failed: compiling the stylesheet, running it, the time limit, the memory ceiling, or delivering the result. */
export type TransformErrorCode = 'compile' | 'runtime' | 'timeout' | 'memory' | 'output';

/**
 * A transform that did not produce a result. The message is meant for the tenant: it names the
 * stylesheet and, when known, the XSLT error code and line (`XTSE0010 at line 3`).
 */
export class TransformError extends Error {
  override readonly name = 'TransformError';

  constructor(
    readonly code: TransformErrorCode,
    message: string,
    /** XSLT/XPath error code such as `XTSE0010` or `FOAR0001`, and the stylesheet line, when known. */
    readonly detail: { xsltCode?: string; line?: number } = {},
  ) {
    super(message);
  }
}
