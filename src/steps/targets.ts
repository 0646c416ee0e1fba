import type { StepName } from '../repository/lookup.js';

/** The render targets of the contract: `POST …/renderpdf` and `POST …/renderpptx` (a ticket's `target`). */
export type TargetName = 'pdf' | 'pptx';

/**
 * What the service knows of one render target. A new target is one entry here, one step file
 * (`steps/render-<x>/step.ts`) and one config schema (`config/ion/schemas/render<x>.ts`).
 */
export interface RenderTarget {
  /** The step that renders it, which is also its config folder (`<step>/config.ion`). */
  readonly step: Extract<StepName, `render${string}`>;
  /** Media type of the output. */
  readonly mediaType: string;
  /** Extension of the output's file name, `<ticket>.<extension>`. */
  readonly extension: string;
  /** Where its master documents are: `<folder>/<name>.<extension>`, project → tenant → global → built-in. */
  readonly masters: { readonly folder: string; readonly extension: string };
  /** The engine that renders it. */
  readonly engine: 'typst' | 'pptx';
  /** Request options only this target accepts (intake refuses them for the others). */
  readonly options: readonly ('convert' | 'aggregate')[];
}

/** The targets table. */
export const targets = {
  pdf: { step: 'renderpdf', mediaType: 'application/pdf', extension: 'pdf', masters: { folder: 'master-documents', extension: 'typ' }, engine: 'typst', options: ['convert', 'aggregate'] },
  pptx: {
    step: 'renderpptx',
    mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: 'pptx',
    masters: { folder: 'powerpoint', extension: 'pptx' },
    engine: 'pptx',
    options: [],
  },
} as const satisfies Record<TargetName, RenderTarget>;

/** The output's file name of a ticket rendered to a target. */
export function outputNameOf(target: RenderTarget, ticketId: string): string {
  return `${ticketId}.${target.extension}`;
}

/** The repository path (relative to a level) of a target's master document. */
export function masterPathOf(target: RenderTarget, name: string): string {
  return `${target.masters.folder}/${name}.${target.masters.extension}`;
}
