import type { Context } from '../context.js';
import { resolveStepConfig, type StepConfig, type StepName } from './lookup.js';

/**
 * The effective configurations one ticket step reads, each resolved once, on first use, then
 * shared by whatever the step hands it to (its delivery, the worker's redelivery rules). A
 * failed resolution fails every use alike. Readers must not change what they get: it is shared.
 */
export interface StepConfigs {
  /** The effective configuration of a step folder for the ticket's project; `restapi` with the ticket's profiles. */
  of<S extends StepName>(step: S): Promise<StepConfig<S>>;
}

/** The configurations of one ticket step of a project (see {@link resolveStepConfig}). */
export function stepConfigs(ctx: Context, tenant: string, project: string, profiles: readonly string[]): StepConfigs {
  const resolved = new Map<StepName, Promise<unknown>>();
  return {
    of<S extends StepName>(step: S): Promise<StepConfig<S>> {
      let config = resolved.get(step);
      if (!config) {
        config = resolveStepConfig(ctx, step, tenant, project, step === 'restapi' ? profiles : []);
        resolved.set(step, config);
      }
      return config as Promise<StepConfig<S>>;
    },
  };
}
