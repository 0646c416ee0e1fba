import type { Static, StructRule } from './schema.js';
import { callbackConfig } from './schemas/callback.js';
import { errorConfig } from './schemas/error.js';
import { renderpdfConfig } from './schemas/renderpdf.js';
import { renderpptxConfig } from './schemas/renderpptx.js';
import { restapiConfig } from './schemas/restapi.js';
import { uploadConfig } from './schemas/upload.js';

/** The step folders that hold a config.ion. */
export const stepNames = ['restapi', 'renderpdf', 'renderpptx', 'upload', 'callback', 'error'] as const;
export type StepName = (typeof stepNames)[number];

/** One schema per step folder. */
export const stepSchemas = {
  restapi: restapiConfig,
  renderpdf: renderpdfConfig,
  renderpptx: renderpptxConfig,
  upload: uploadConfig,
  callback: callbackConfig,
  error: errorConfig,
} satisfies Record<StepName, StructRule>;

/** The effective configuration of a step folder, as its schema types it. */
export type StepConfig<S extends StepName> = Static<(typeof stepSchemas)[S]>;

/** Profile names in `restapi/config-<profile>.ion`. */
export const profilePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Which step's config a repository path holds, at any level: `<step>/config.ion` or `restapi/config-<profile>.ion`. */
export function configKindOf(path: string): { step: StepName; profile?: string } | undefined {
  const segments = path.split('/');
  const file = segments.at(-1) ?? '';
  const folder = segments.at(-2) as StepName | undefined;
  if (folder === undefined || !(stepNames as readonly string[]).includes(folder)) return undefined;
  if (file === 'config.ion') return { step: folder };
  const m = /^config-(.+)\.ion$/.exec(file);
  if (folder === 'restapi' && m && profilePattern.test(m[1]!)) return { step: folder, profile: m[1]! };
  return undefined;
}
