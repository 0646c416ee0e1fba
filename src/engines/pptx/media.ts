// Images of the job as media parts: each resource becomes one part, however many slides show it.
import { PptxError } from './errors.js';
import { imageInfo, type ImageInfo } from './images.js';
import { REL } from './ooxml.js';
import type { OpcPackage } from './package.js';

export interface MediaPart {
  part: string;
  info: ImageInfo;
}

/** The media parts added to one package, by resource path. */
export class MediaStore {
  private readonly parts = new Map<string, MediaPart>();

  constructor(
    private readonly pkg: OpcPackage,
    private readonly resources: ReadonlyMap<string, Buffer>,
  ) {}

  private lookup(src: string): [string, Buffer] | undefined {
    // Paths are written as in the ZIP or the repository; a leading "/" or "./" is the same file.
    for (const key of [src, src.replace(/^(\.\/|\/)+/, '')]) {
      const data = this.resources.get(key);
      if (data) return [key, data];
    }
    return undefined;
  }

  /** The media part for a resource (added on first use); a PptxError('image') when missing or not an image. */
  get(src: string): MediaPart {
    const found = this.lookup(src);
    if (!found) throw new PptxError('image', `image "${src}" is not among the job's resources (ZIP entries, repository images, downloaded assets)`);
    const [key, data] = found;
    let media = this.parts.get(key);
    if (!media) {
      const info = imageInfo(data, src);
      const part = this.pkg.freeName('ppt/media/pressroom-image', `.${info.extension}`);
      this.pkg.ensureDefault(info.extension, info.contentType);
      this.pkg.put(part, data);
      media = { part, info };
      this.parts.set(key, media);
    }
    return media;
  }

  /** The id of `slidePart`'s image relationship to a media part (one per pair). */
  relFrom(slidePart: string, media: MediaPart): string {
    const existing = this.pkg.rels(slidePart).find((r) => r.type === REL.image && this.pkg.resolve(slidePart, r) === media.part);
    return existing?.id ?? this.pkg.addRel(slidePart, REL.image, media.part);
  }
}
