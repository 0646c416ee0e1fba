// XSLT 3.0 transform step: SaxonJS in sandboxed child processes. See docs/transform.md.
export { Transformer, type TransformRequest, type TransformerOptions, type TransformerStats } from './transformer.js';
export { TransformError, type TransformErrorCode } from './transform-error.js';
