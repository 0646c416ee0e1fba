// Jobs and results between the Transformer and its sandbox processes, inside the pool's envelope.

/** Everything a sandbox process is started with; passed as a JSON literal in its source. */
export interface SandboxArgs {
  /** Absolute path of SaxonJS2N.js; its folder is the only one the process may read. */
  saxonPath: string;
  /** Base URI given to every stylesheet; error messages show the stylesheet name instead. */
  stylesheetBaseUri: string;
  /** Base output URI; `xsl:result-document href=""` writes the principal result through it. */
  outputUri: string;
  /** How many parsed SEFs a process keeps, saving the JSON parse and preparation. */
  sefCacheSize: number;
}

/** One transform. Either `sef` (compiled before) or `stylesheet` (to compile) is set. */
export interface SandboxJob {
  /** sha256 of the stylesheet bytes. */
  sefKey: string;
  sef: string | null;
  stylesheet: Uint8Array | null;
  input: Uint8Array;
  inputType: 'xml' | 'json';
  params: Record<string, string>;
}

/** Why a transform failed, as the sandbox saw it; the Transformer words the message. */
export interface SandboxFailure {
  kind: 'compile' | 'runtime' | 'output';
  /** XSLT/XPath error code without the standard namespace, e.g. `XTSE0010`; `Q{uri}local` for others. */
  xsltCode: string | null;
  /** Line in the stylesheet, when known. */
  line: number | null;
  message: string;
}

interface ReplyBase {
  /** The SEF compiled for this job (JSON text), when the job brought the stylesheet. */
  sef: string | null;
  /** `xsl:message` output, shortened. */
  messages: string[];
}

export type SandboxReply = (ReplyBase & { ok: true; output: Uint8Array }) | (ReplyBase & { ok: false; failure: SandboxFailure });
