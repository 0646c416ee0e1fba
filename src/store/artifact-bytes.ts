import { Readable } from 'node:stream';
import type { BlobStore, ByteRange } from '../blobs/index.js';
import type { ArtifactRow } from './tickets.js';

// A stored file's bytes are in its row (`data`, a small file) or in the blob store under
// `blob_key`. Every reader goes through these two, so none needs to know which.

/** The whole file; undefined when its blob is gone. */
export async function artifactBytes(blobs: BlobStore, row: Pick<ArtifactRow, 'data' | 'blob_key'>): Promise<Buffer | undefined> {
  return row.data ?? blobs.get(row.blob_key);
}

/** The file, or only the bytes of `range`, as a stream; undefined when its blob is gone. */
export async function artifactStream(blobs: BlobStore, row: Pick<ArtifactRow, 'data' | 'blob_key'>, range?: ByteRange): Promise<Readable | undefined> {
  if (!row.data) return blobs.stream(row.blob_key, range);
  const bytes = range ? row.data.subarray(range.start, range.end + 1) : row.data;
  return Readable.from([bytes], { objectMode: false });
}
