// XSLT 3.0: SaxonJS in sandboxed processes of the process pool. See docs/transform.md.
export { Transformer, type TransformRequest, type TransformerOptions, type TransformerStats } from './transformer.js';
export { TransformError, type TransformErrorCode } from './transform-error.js';
