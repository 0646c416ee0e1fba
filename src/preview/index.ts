export { Previewer, type PreviewResult, type PreviewPageView } from './previewer.js';
export { checkPreviewBody, previewLimits, DEFAULT_PREVIEW_RESOLUTION, type PreviewBody, type PreviewInput } from './request.js';
