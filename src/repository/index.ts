export { parseFilePath, parseFolderPath, scopePrefix, type PathScope, type RepoPath } from './paths.js';
export { authorizePath, requireRepositoryScope } from './access.js';
export { putFile, getFile, deleteFile, type FileWritten, type FileContent } from './files.js';
export { runBulk, type BulkOperation, type BulkResult } from './bulk.js';
export { uploadTree, type TreeUploadOptions } from './tree-upload.js';
export { listTree, compilePattern, DEFAULT_TREE_PATTERN, type TreeFile, type TreeListing } from './tree-list.js';
export { contentTypeOf } from './content-types.js';
export { validateFile } from './validate.js';
export { lookupRepositoryFile, readRepositoryBlob, resolveStepConfig, type RepositoryFileRef, type StepConfig, type StepName } from './lookup.js';
