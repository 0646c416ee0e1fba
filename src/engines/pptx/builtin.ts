import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RELATIVE = join('templates', 'pptx', 'default.pptx');

/**
 * The package root: the nearest folder above `start` with a package.json and the built-in
 * deck. This file runs from src/engines/pptx under tsx and from dist/engines/pptx
 * when compiled; a package.json on the way without templates (a build marker) is skipped.
 */
export function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'templates', 'pptx'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`pressroom package root (package.json with templates/pptx) not found above ${start}`);
    dir = parent;
  }
}

/** Absolute path of the built-in master deck, templates/pptx/default.pptx. */
export function builtinMasterPath(): string {
  return join(findPackageRoot(dirname(fileURLToPath(import.meta.url))), RELATIVE);
}
