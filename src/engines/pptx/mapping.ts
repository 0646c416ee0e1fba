// Which shapes of a slide a field fills: the mapping options of renderpptx/config.ion.
import { PptxError } from './errors.js';
import type { ShapeRef } from './shapes.js';

/** The layout-mapping properties of renderpptx/config.ion, all optional. */
export interface PptxOptions {
  /** A field's name is looked up among placeholder names first. @defaultValue true */
  mapPlaceholdersByName?: boolean;
  /** …then among placeholder types (`title`, `body`, `subTitle`, `pic`, …). @defaultValue true */
  mapPlaceholdersByType?: boolean;
  /** …then among the names of the slide's other shapes. @defaultValue true */
  mapShapesByName?: boolean;
  /** One field fills every placeholder of its name, not only the next free one. @defaultValue false */
  allowMultiplePlaceholderPerName?: boolean;
  /** One field fills every placeholder of its type, not only the next free one. @defaultValue false */
  allowMultiplePlaceholderPerType?: boolean;
  /** One field fills every shape of its name, not only the next free one. @defaultValue false */
  allowMultipleShapesPerName?: boolean;
  /** 1-based number of the master slide after which new slides go; 0 puts them first. @defaultValue after the last */
  insertNewSlidesAfter?: number;
  /** Keep the master deck's own slides in the output. @defaultValue true */
  keepExistingSlides?: boolean;
  /** View the deck opens in: `normal`, `slideSorter`, `outline`, `notes`, … @defaultValue unchanged */
  preferredView?: string;
}

/** Type names a field may use for placeholder types beyond the exact ST_PlaceholderType values. */
const TYPE_ALIASES: Record<string, readonly string[]> = {
  title: ['title', 'ctrTitle'],
  // A placeholder without a type is `obj` (content): it takes text as a body does.
  body: ['body', 'obj'],
};

export type MatchRule = 'placeholderName' | 'placeholderType' | 'shapeName';

const RULE_TEXT: Record<MatchRule, string> = { placeholderName: 'placeholder named', placeholderType: 'placeholder of type', shapeName: 'shape named' };

function candidates(rule: MatchRule, key: string, shapes: ShapeRef[]): ShapeRef[] {
  const fillable = shapes.filter((s) => s.kind !== 'grpSp');
  if (rule === 'placeholderName') return fillable.filter((s) => s.ph && s.name === key);
  if (rule === 'placeholderType') {
    // Exact type first, then the alias types, each in drawing order.
    const types = TYPE_ALIASES[key] ?? [key];
    return types.flatMap((t) => fillable.filter((s) => s.ph?.type === t));
  }
  return fillable.filter((s) => !s.ph && s.name === key);
}

/**
 * The shapes a field fills. Rules are tried in order (placeholder name, placeholder type,
 * shape name), each only when its map… option is on; the first rule with a match decides.
 * With its allowMultiple… option off the field takes the first match not yet filled on
 * this slide (so two `body` fields fill both columns); on, it fills every match.
 * Returns [] for an optional field without a target; otherwise a PptxError('shape').
 */
export function resolveTargets(key: string, optional: boolean, shapes: ShapeRef[], filled: ReadonlySet<ShapeRef>, options: PptxOptions, where: string): ShapeRef[] {
  const rules: [MatchRule, boolean, boolean][] = [
    ['placeholderName', options.mapPlaceholdersByName ?? true, options.allowMultiplePlaceholderPerName ?? false],
    ['placeholderType', options.mapPlaceholdersByType ?? true, options.allowMultiplePlaceholderPerType ?? false],
    ['shapeName', options.mapShapesByName ?? true, options.allowMultipleShapesPerName ?? false],
  ];
  for (const [rule, enabled, multiple] of rules) {
    if (!enabled) continue;
    const found = candidates(rule, key, shapes);
    if (found.length === 0) continue;
    if (multiple) return found;
    const free = found.find((s) => !filled.has(s));
    if (free) return [free];
    if (optional) return [];
    throw new PptxError('shape', `${where}: every ${RULE_TEXT[rule]} "${key}" (${found.length}) is filled already; allowMultiple… options let one field fill them all`);
  }
  if (optional) return [];
  const enabled = rules.filter(([, on]) => on).map(([r]) => RULE_TEXT[r]);
  const placeholders = shapes.filter((s) => s.ph).map((s) => `"${s.name}" (${s.ph!.type})`);
  const others = shapes.filter((s) => !s.ph && s.kind !== 'grpSp' && s.name !== '').map((s) => `"${s.name}"`);
  throw new PptxError(
    'shape',
    `${where}: no ${enabled.length > 0 ? enabled.join(' or ') : 'shape (every map… option is off)'} "${key}" on this slide; ` +
      `placeholders: ${placeholders.join(', ') || 'none'}; other shapes: ${others.join(', ') || 'none'}`,
  );
}
