/** What a PptxError is about; the render log and the ticket's error message name it. */
export type PptxErrorKind = 'master' | 'input' | 'image' | 'layout' | 'shape' | 'table';

/**
 * A rendering failure caused by the master deck or the job's data (never a bug of
 * pressroom): the message is safe to show to the client and names the culprit.
 */
export class PptxError extends Error {
  override readonly name = 'PptxError';
  constructor(
    readonly kind: PptxErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
