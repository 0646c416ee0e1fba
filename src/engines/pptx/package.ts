// The OPC package of a deck: parts by name, their relationships and content types.
// Parts are parsed only when asked for; everything else is carried through as bytes.
import { posix } from 'node:path';
import { readZip } from '../../zip/reader.js';
import { PptxError } from './errors.js';
import { cachedEntries, masterKey, rememberEntries, type MasterEntry } from './master-cache.js';
import { NS } from './ooxml.js';
import { attr, childrenNamed, decodeXml, el, parseXml, serializeXml, type XmlElement } from './xml.js';
import { writeZip } from './zip-write.js';

/** Limits on the master's ZIP: a deck is small; anything near these is an attack or a mistake. */
export const MASTER_ZIP_LIMITS = { maxEntries: 5000, maxBytes: 200 * 1024 * 1024 } as const;

/** One relationship of a part. `target` is as written: relative, absolute or a URL. */
export interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

const CONTENT_TYPES = '[Content_Types].xml';
const masterError = (message: string) => new PptxError('master', message);

/** The rels part that belongs to a source part ('' is the package itself). */
export function relsPartOf(source: string): string {
  const dir = posix.dirname(source);
  return source === '' ? '_rels/.rels' : `${dir === '.' ? '' : `${dir}/`}_rels/${posix.basename(source)}.rels`;
}

/** Reads a master deck; anything that is not a safe, well-formed package is a PptxError('master'). */
export class OpcPackage {
  private readonly data = new Map<string, Buffer>();
  private readonly trees = new Map<string, XmlElement>();
  private readonly relsOf = new Map<string, Relationship[]>();
  private readonly byLower = new Map<string, string>();
  private readonly defaults = new Map<string, string>();
  private readonly overrides = new Map<string, string>();

  private constructor() {}

  /** Opens a master from its bytes: ZIP safety, content types and the DTD ban are checked here. */
  static async open(buffer: Buffer): Promise<OpcPackage> {
    const pkg = new OpcPackage();
    for (const e of await checkedEntries(buffer)) {
      pkg.byLower.set(e.name.toLowerCase(), e.name);
      pkg.data.set(e.name, e.data);
    }
    const typesName = pkg.find(CONTENT_TYPES) ?? CONTENT_TYPES;
    const types = pkg.data.get(typesName);
    if (!types) throw masterError('the master is not a PPTX file: it has no [Content_Types].xml');
    const root = parseXml(decodeXml(types), CONTENT_TYPES, masterError);
    for (const d of childrenNamed(root, 'Default')) pkg.defaults.set((attr(d, 'Extension') ?? '').toLowerCase(), attr(d, 'ContentType') ?? '');
    for (const o of childrenNamed(root, 'Override')) pkg.overrides.set((attr(o, 'PartName') ?? '').replace(/^\//, '').toLowerCase(), attr(o, 'ContentType') ?? '');
    // Regenerated from the maps above when the package is written.
    pkg.data.delete(typesName);
    pkg.byLower.delete(typesName.toLowerCase());
    return pkg;
  }

  /** The actual name of a part, matched without regard to case as OPC wants, or undefined. */
  find(name: string): string | undefined {
    return this.byLower.get(name.toLowerCase());
  }

  has(name: string): boolean {
    return this.find(name) !== undefined;
  }

  /** Part names in package order. */
  names(): string[] {
    return [...this.byLower.values()];
  }

  /** A part's bytes (the serialised tree if it was parsed). */
  bytes(name: string): Buffer {
    const real = this.find(name) ?? name;
    const tree = this.trees.get(real);
    if (tree) return serializeXml(tree);
    const data = this.data.get(real);
    if (!data) throw masterError(`the master has no part "${name}"`);
    return data;
  }

  /** A part parsed as XML; edits to the returned tree are saved with the package. */
  xml(name: string): XmlElement {
    const real = this.find(name) ?? name;
    let tree = this.trees.get(real);
    if (!tree) {
      const data = this.data.get(real);
      if (!data) throw masterError(`the master has no part "${name}"`);
      tree = parseXml(decodeXml(data), `master part ${real}`, masterError);
      this.trees.set(real, tree);
    }
    return tree;
  }

  /** Adds or replaces a part. */
  put(name: string, content: Buffer | XmlElement, contentType?: string): void {
    const real = this.find(name) ?? name;
    this.byLower.set(real.toLowerCase(), real);
    if (Buffer.isBuffer(content)) {
      this.data.set(real, content);
      this.trees.delete(real);
    } else {
      this.trees.set(real, content);
      this.data.delete(real);
    }
    if (contentType !== undefined && contentType !== this.contentType(real)) this.overrides.set(real.toLowerCase(), contentType);
  }

  /** The content type of a part: its override, else the default of its extension. */
  contentType(name: string): string | undefined {
    return this.overrides.get(name.toLowerCase()) ?? this.defaults.get(posix.extname(name).slice(1).toLowerCase());
  }

  /** Makes sure an extension has a default content type (media parts). */
  ensureDefault(extension: string, contentType: string): void {
    if (!this.defaults.has(extension)) this.defaults.set(extension, contentType);
  }

  /** The first free name `prefix<n>suffix`, n counting from 1. */
  freeName(prefix: string, suffix: string): string {
    for (let n = 1; ; n++) if (!this.has(`${prefix}${n}${suffix}`)) return `${prefix}${n}${suffix}`;
  }

  /** The relationships of a part ('' for the package). */
  rels(source: string): Relationship[] {
    const key = source === '' ? '' : (this.find(source) ?? source);
    let list = this.relsOf.get(key);
    if (!list) {
      const part = this.find(relsPartOf(key));
      const root = part === undefined ? undefined : this.xml(part);
      list = root
        ? childrenNamed(root, 'Relationship').map((r) => ({ id: attr(r, 'Id') ?? '', type: attr(r, 'Type') ?? '', target: attr(r, 'Target') ?? '', external: attr(r, 'TargetMode') === 'External' }))
        : [];
      this.relsOf.set(key, list);
    }
    return list;
  }

  /** The part a relationship points to, or undefined for external or dangling targets. */
  resolve(source: string, rel: Relationship): string | undefined {
    if (rel.external) return undefined;
    let target: string;
    try {
      target = decodeURIComponent(rel.target.split('#')[0]!);
    } catch {
      return undefined;
    }
    const joined = target.startsWith('/') ? target.slice(1) : posix.join(posix.dirname(source), target);
    const normal = posix.normalize(joined);
    return normal.startsWith('..') ? undefined : this.find(normal);
  }

  /** Resolved targets of a part's relationships of one type. */
  targets(source: string, type: string): string[] {
    return this.rels(source)
      .filter((r) => r.type === type)
      .map((r) => this.resolve(source, r))
      .filter((t): t is string => t !== undefined);
  }

  /** Adds a relationship to a part (or to a URL when `external`), returning its id. */
  addRel(source: string, type: string, target: string, external = false): string {
    const list = this.rels(source);
    const used = new Set(list.map((r) => r.id));
    let n = list.length + 1;
    while (used.has(`rId${n}`)) n++;
    const id = `rId${n}`;
    const written = external ? target : posix.relative(posix.dirname(source) || '.', target);
    list.push({ id, type, target: written, external });
    return id;
  }

  /** Replaces the relationships of a part. */
  setRels(source: string, rels: Relationship[]): void {
    this.relsOf.set(source, rels);
  }

  /** Removes a part, its relationships part and its content type override. */
  remove(name: string): void {
    const real = this.find(name);
    if (real === undefined) return;
    this.byLower.delete(real.toLowerCase());
    this.data.delete(real);
    this.trees.delete(real);
    this.overrides.delete(real.toLowerCase());
    this.relsOf.delete(real);
    const rels = this.find(relsPartOf(real));
    if (rels !== undefined) this.remove(rels);
  }

  /** Drops every part no relationship chain from the package root reaches (slides left out, their notes, …). */
  prune(): void {
    const reached = new Set<string>();
    const visit = (source: string) => {
      for (const rel of this.rels(source)) {
        const t = this.resolve(source, rel);
        if (t !== undefined && !reached.has(t)) {
          reached.add(t);
          visit(t);
        }
      }
    };
    visit('');
    for (const name of this.names()) if (!name.endsWith('.rels') && !reached.has(name)) this.remove(name);
  }

  /** Writes the package: content types first, relationship parts regenerated from memory. */
  async toBuffer(): Promise<Buffer> {
    for (const [source, list] of this.relsOf) {
      const root = el('Relationships', { xmlns: NS.rels }, list.map((r) => el('Relationship', { Id: r.id, Type: r.type, Target: r.target, TargetMode: r.external ? 'External' : undefined })));
      if (list.length > 0 || this.has(relsPartOf(source))) this.put(relsPartOf(source), root);
    }
    const types = el('Types', { xmlns: NS.ct }, [
      ...[...this.defaults].map(([ext, type]) => el('Default', { Extension: ext, ContentType: type })),
      ...this.names()
        .filter((n) => this.overrides.has(n.toLowerCase()))
        .map((n) => el('Override', { PartName: `/${n}`, ContentType: this.overrides.get(n.toLowerCase()) })),
    ]);
    const entries = [{ name: CONTENT_TYPES, data: serializeXml(types), compress: true }];
    for (const name of this.names()) entries.push({ name, data: this.bytes(name), compress: /\.(xml|rels)$/i.test(name) });
    return writeZip(entries);
  }
}

/** The files of a master ZIP, checked: safe ZIP, no case-duplicate names, no DTD in any XML part. */
async function checkedEntries(buffer: Buffer): Promise<MasterEntry[]> {
  const key = masterKey(buffer);
  const cached = cachedEntries(key);
  if (cached) return cached;
  let entries;
  try {
    entries = await readZip(buffer, MASTER_ZIP_LIMITS);
  } catch (err) {
    throw new PptxError('master', `the master is not a PPTX file: ${(err as Error).message}`, { cause: err });
  }
  const files: MasterEntry[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.kind !== 'file') continue;
    if (seen.has(e.name.toLowerCase())) throw masterError(`the master has two parts named "${e.name}" (names differ only in case)`);
    seen.add(e.name.toLowerCase());
    // Any part that is XML text (.xml, .rels, .vml, …), whatever its extension.
    if (decodeXml(e.data.subarray(0, 64)).trimStart().startsWith('<')) assertNoDtd(e.name, e.data);
    files.push({ name: e.name, data: e.data });
  }
  rememberEntries(key, files);
  return files;
}

function assertNoDtd(name: string, data: Buffer): void {
  // Refused even in parts pressroom never parses: the output must not carry a DTD to the client's office suite.
  if (/<!DOCTYPE|<!ENTITY/i.test(decodeXml(data))) throw masterError(`master part ${name} declares a DOCTYPE or an entity; DTDs are refused`);
}
