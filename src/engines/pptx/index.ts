// PPTX rendering: master deck + input XML → presentation. See docs/pptx.md.
export { builtinMasterPath } from './builtin.js';
export { PptxError, type PptxErrorKind } from './errors.js';
export { type PptxOptions } from './mapping.js';
export { MASTER_ZIP_LIMITS } from './package.js';
export { PREFERRED_VIEWS } from './presentation.js';
export { MAX_NEW_SLIDES, renderPptx, type PptxLog, type PptxRenderInput } from './render.js';
