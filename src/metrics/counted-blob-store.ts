import type { BlobStore } from '../blobs/index.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * The blob store with its failures counted in `pressroom_blob_errors_total{op}`. A missing key is
 * no failure (the store answers undefined); a rejection is: an outage, refused credentials, a
 * full disk. The error itself goes on to the caller unchanged.
 */
export function countBlobErrors(store: BlobStore, metrics: ServiceMetrics): BlobStore {
  const counted = <A extends unknown[], R>(op: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      fn.apply(store, args).catch((err: unknown) => {
        metrics.blobError(op);
        throw err;
      });
  return {
    description: store.description,
    put: counted('put', store.put),
    putUnreferenced: counted('put', store.putUnreferenced),
    get: counted('get', store.get),
    stream: counted('stream', store.stream),
    stat: counted('stat', store.stat),
    size: counted('size', store.size),
    delete: counted('delete', store.delete),
    list: counted('list', store.list),
    listPage: counted('listPage', store.listPage),
    deletePrefix: counted('deletePrefix', store.deletePrefix),
    removeStaleTemp: counted('removeStaleTemp', store.removeStaleTemp),
    check: counted('check', store.check),
    close: () => store.close(),
  };
}
