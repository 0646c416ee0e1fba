// renderPptx: master deck + input document → presentation. Slides are made in input
// order, filled field by field, then filed into the slide list of the master.
import { Deck } from './deck.js';
import { PptxError } from './errors.js';
import { fillImage, fillText, type SlideContext } from './fill.js';
import { parseInput } from './input.js';
import { resolveTargets, type PptxOptions } from './mapping.js';
import { MediaStore } from './media.js';
import type { FieldSpec, SlideSpec } from './model.js';
import { addNotes } from './notes.js';
import { NS, REL } from './ooxml.js';
import type { OpcPackage } from './package.js';
import { setPreferredView, updateAppProps, viewType, writeSlideList } from './presentation.js';
import type { LinkRel } from './rich-text.js';
import { listShapes, shapeTree, type ShapeRef } from './shapes.js';
import { cloneSlide, notesOf, setSlideProps, slideFromLayout } from './slides.js';
import { placeTable, planTable } from './table.js';
import type { XmlElement } from './xml.js';

/** Most slides one render may add (continuation slides of long tables included). */
export const MAX_NEW_SLIDES = 2000;

export type PptxLog = (level: 'info' | 'warn' | 'fatal', message: string) => void;

/** Everything one render needs; the caller resolves the master and the resources. */
export interface PptxRenderInput {
  /** The master .pptx. */
  master: Buffer;
  /** The input XML in the documented format (docs/pptx.md). */
  data: Buffer;
  /** ZIP resources, repository images and downloaded assets, by path. */
  resources: Map<string, Buffer>;
  /** The mapping options of renderpptx/config.ion. */
  options: PptxOptions;
  log: PptxLog;
  /** Checked between slides: an aborted render stops with the signal's reason. */
  signal?: AbortSignal;
}

interface Run {
  deck: Deck;
  media: MediaStore;
  options: PptxOptions;
  log: PptxLog;
}

/** A link maker for one part: one external relationship per distinct URL. */
function linkMaker(pkg: OpcPackage, part: string): LinkRel {
  const ids = new Map<string, string>();
  return (href) => {
    let id = ids.get(href);
    if (!id) ids.set(href, (id = pkg.addRel(part, REL.hyperlink, href, true)));
    return id;
  };
}

/** Makes sure the slide's root binds a:, p: and r: as pressroom writes them. */
function checkPrefixes(root: XmlElement, part: string): void {
  for (const [prefix, uri] of [['a', NS.a], ['p', NS.p], ['r', NS.r]] as const) {
    const bound = root.attrs[`xmlns:${prefix}`];
    if (bound === undefined) root.attrs[`xmlns:${prefix}`] = uri;
    else if (bound !== uri) throw new PptxError('master', `master part ${part} binds the prefix "${prefix}" to ${bound}; pressroom cannot edit it`);
  }
}

/** Builds one slide (chunk > 0: a continuation slide of an overflowing table); returns its part and how many chunks its table needs. */
function buildSlide(run: Run, spec: SlideSpec, chunk: number): { part: string; chunks: number } {
  const { deck, options } = run;
  const part = spec.layout !== undefined ? slideFromLayout(deck, deck.layout(spec.layout)) : cloneSlide(deck, deck.slide(spec.clone!).part, spec.notes !== undefined);
  const root = deck.pkg.xml(part);
  checkPrefixes(root, part);
  setSlideProps(deck, part, spec.name, spec.hidden);
  const ctx: SlideContext = { deck, part, media: run.media, link: linkMaker(deck.pkg, part) };
  const shapes = listShapes(shapeTree(root));
  const filled = new Set<ShapeRef>();
  let chunks = 1;
  let overflowing: FieldSpec | undefined;
  for (const field of spec.fields) {
    const where = `slide ${spec.number}, field "${field.key}"`;
    const targets = resolveTargets(field.key, field.optional, shapes, filled, options, where);
    if (targets.length === 0 && chunk === 0) run.log('warn', `${where}: no matching shape; the optional field is left out`);
    for (const target of targets) {
      filled.add(target);
      const c = field.content;
      if (c.kind === 'text') fillText(target, c.paragraphs, ctx.link, field.key);
      else if (c.kind === 'image') fillImage(ctx, target, c, field.key);
      else {
        const box = deck.boxOf(part, target);
        const plan = planTable(c, box, where);
        if (plan.chunks.length > 1) {
          if (overflowing !== undefined && overflowing !== field) throw new PptxError('table', `${where}: only one table per slide may continue on further slides ("${overflowing.key}" does already)`);
          overflowing = field;
          chunks = Math.max(chunks, plan.chunks.length);
        }
        placeTable(target, box, c, plan, chunk, ctx.link);
      }
    }
  }
  if (spec.notes) addNotes(deck, part, spec.notes, (p) => linkMaker(deck.pkg, p));
  return { part, chunks };
}

function anchorOf(run: Run, keep: boolean): number {
  const count = run.deck.slides.length;
  const wanted = run.options.insertNewSlidesAfter;
  if (wanted === undefined) return count;
  if (!Number.isInteger(wanted) || wanted < 0) throw new PptxError('input', `insertNewSlidesAfter ${wanted} is not a slide number (0 or more)`);
  if (!keep) {
    run.log('info', 'insertNewSlidesAfter is ignored: keepExistingSlides is false, so the master has no slides left to insert after');
    return 0;
  }
  if (wanted > count) run.log('warn', `insertNewSlidesAfter ${wanted}: the master deck has ${count} slide(s); new slides go at the end`);
  return Math.min(wanted, count);
}

/**
 * Renders a presentation: slides from the input document made from the master's
 * layouts or copies of its slides, filled per the mapping options, with the master's
 * own slides kept or dropped. Failures caused by the master or the data are PptxErrors.
 */
export async function renderPptx(input: PptxRenderInput): Promise<{ pptx: Buffer; slides: number }> {
  try {
    return await render(input);
  } catch (err) {
    // The render log is shown to the client: a PptxError's message is meant for it, anything
    // else is a bug whose details stay in the service log. An abort is the caller's to report.
    if (err instanceof PptxError) input.log('fatal', `${err.kind}: ${err.message}`);
    else if (!input.signal?.aborted) input.log('fatal', 'internal error while rendering the presentation');
    throw err;
  }
}

async function render(input: PptxRenderInput): Promise<{ pptx: Buffer; slides: number }> {
  const { options, log, signal } = input;
  if (options.preferredView !== undefined) viewType(options.preferredView);
  const specs = parseInput(input.data);
  const deck = await Deck.open(input.master);
  const names = [...new Set(deck.layouts.map((l) => `"${l.name}"`))];
  log('info', `master: ${deck.layouts.length} layouts (${names.slice(0, 30).join(', ')}${names.length > 30 ? ', …' : ''}), ${deck.slides.length} slide(s)`);
  const run: Run = { deck, media: new MediaStore(deck.pkg, input.resources), options, log };
  const keep = options.keepExistingSlides ?? true;
  const anchor = anchorOf(run, keep);

  const made: string[] = [];
  for (const spec of specs) {
    signal?.throwIfAborted();
    // Yield between slides so a deadline timer can fire and abort a long render.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const first = buildSlide(run, spec, 0);
    // Checked before the continuation slides are made, so a huge table fails fast.
    if (made.length + first.chunks > MAX_NEW_SLIDES) throw new PptxError('input', `the input makes more than ${MAX_NEW_SLIDES} slides (at slide ${spec.number})`);
    made.push(first.part);
    for (let chunk = 1; chunk < first.chunks; chunk++) made.push(buildSlide(run, spec, chunk).part);
    const source = spec.layout !== undefined ? `layout "${spec.layout}"` : `clone of master slide ${spec.clone}`;
    log('info', `slide ${spec.number}: ${source}${first.chunks > 1 ? `, table continued on ${first.chunks - 1} more slide(s)` : ''}`);
  }
  signal?.throwIfAborted();

  checkPrefixes(deck.pkg.xml(deck.presentationPart), deck.presentationPart);
  const final = writeSlideList(deck, made, keep, anchor);
  if (options.preferredView !== undefined) setPreferredView(deck, options.preferredView);
  updateAppProps(deck, final.length, final.filter((s) => notesOf(deck, s.part) !== undefined).length);
  deck.pkg.prune();
  const pptx = await deck.pkg.toBuffer();
  log('info', `deck written: ${final.length} slide(s), ${made.length} new, ${pptx.length} bytes`);
  return { pptx, slides: final.length };
}
