import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the built-in Typst files: `templates/typst` in the package root, found by
 * walking up from `start` to the first folder that holds both package.json and that folder.
 * This file runs from `src/repository/` under tsx and from `dist/repository/`
 * when compiled; a package.json on the way without templates (a build marker) is skipped.
 */
export function findTemplatesDir(start: string): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'templates', 'typst');
    if (existsSync(join(dir, 'package.json')) && existsSync(join(candidate, 'pressroom', 'lib.typ'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`pressroom templates/typst not found in any folder above ${start}`);
    dir = parent;
  }
}

/** Absolute path of `templates/typst`, the built-in master documents and the helper library. */
export const BUILTIN_TEMPLATES_DIR = findTemplatesDir(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of the helper library on disk; jobs see it at `/pressroom/lib.typ`. */
export const HELPER_LIBRARY_PATH = join(BUILTIN_TEMPLATES_DIR, 'pressroom', 'lib.typ');

/** Names of the built-in master documents (the last fallback of the template lookup). */
export const builtinTemplateNames: readonly string[] = readdirSync(BUILTIN_TEMPLATES_DIR, { withFileTypes: true })
  .filter((e) => e.isFile() && /^[A-Za-z0-9][A-Za-z0-9_-]*\.typ$/.test(e.name))
  .map((e) => e.name.slice(0, -'.typ'.length))
  .sort();

/** Absolute path of a built-in master document, or undefined for an unknown name. */
export function builtinTemplatePath(name: string): string | undefined {
  return builtinTemplateNames.includes(name) ? join(BUILTIN_TEMPLATES_DIR, `${name}.typ`) : undefined;
}

const cache = new Map<string, Promise<Buffer>>();

function cached(path: string): Promise<Buffer> {
  let data = cache.get(path);
  if (!data) {
    data = readFile(path);
    data.catch(() => cache.delete(path));
    cache.set(path, data);
  }
  return data;
}

/** A built-in master document's source, or undefined for an unknown name. */
export async function readBuiltinTemplate(name: string): Promise<Buffer | undefined> {
  const path = builtinTemplatePath(name);
  return path === undefined ? undefined : cached(path);
}

/** The pressroom Typst helper library, mapped at /pressroom/lib.typ in every job. */
export async function readHelperLibrary(): Promise<Buffer> {
  return cached(HELPER_LIBRARY_PATH);
}
