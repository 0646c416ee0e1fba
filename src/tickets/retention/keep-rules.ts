import type { StepConfig } from '../../repository/lookup.js';
import type { Context } from '../../context.js';
import type { KeepUntil } from '../../tenants/index.js';

/** When a step stores a kind of file: `keepOutput` and `keepLog` values. */
export type KeepWhen = 'never' | 'onerror' | 'onsuccess' | 'always';

/** The retention properties of a render step's config.ion (renderpdf and renderpptx share them). */
export type RetentionConfig = Pick<StepConfig<'renderpdf'>, 'keepOutput' | 'keepOutputForSeconds' | 'keepOutputUntil' | 'keepLog' | 'keepLogForSeconds' | 'keepLogUntil'>;

/** What to do with one kind of file (output, or log and content) of one step run. */
export interface KeepRule {
  /** Store the files when the step succeeds. */
  readonly onSuccess: boolean;
  /** Store the files when the step fails. */
  readonly onError: boolean;
  /** The file's own expiry (epoch ms) for `artifacts.keep_until`; null: no expiry. */
  readonly until: number | null;
  /** Deletion rule for `artifacts.keep_rule`. */
  readonly rule: KeepUntil;
}

/** The retention of a step run's files: the output, and everything else (logs, content). */
export interface RetentionPlan {
  readonly output: KeepRule;
  readonly log: KeepRule;
}

/** Defaults of the retention properties of a render step's config.ion. */
export interface RetentionDefaults {
  readonly keepOutput: KeepWhen;
  readonly keepOutputForSeconds: number;
  readonly keepOutputUntil: KeepUntil;
  readonly keepLog: KeepWhen;
  readonly keepLogForSeconds: number;
  readonly keepLogUntil: KeepUntil;
}

/**
 * Defaults per step folder. renderpptx follows the contract's table; renderpdf keeps its logs
 * by default (they are small and help support), for as long as its output.
 */
export const retentionDefaults: Readonly<Record<'renderpdf' | 'renderpptx', RetentionDefaults>> = {
  renderpdf: { keepOutput: 'onsuccess', keepOutputForSeconds: 86400, keepOutputUntil: 'shippedOrExpired', keepLog: 'always', keepLogForSeconds: 86400, keepLogUntil: 'shippedOrExpired' },
  renderpptx: { keepOutput: 'onsuccess', keepOutputForSeconds: 86400, keepOutputUntil: 'shippedOrExpired', keepLog: 'onerror', keepLogForSeconds: 0, keepLogUntil: 'shippedOrExpired' },
};

/** A project's own retention settings (the project record's `keepUntil` and `expires`). */
export interface ProjectRetention {
  readonly keep_until: string | null;
  readonly expires: number | null;
}

/**
 * Resolves the retention of a step run. Rule precedence: the step's config.ion
 * (`keepOutputUntil`/`keepLogUntil`, any level), then the project's `keepUntil`, then the
 * default. A project `expires` date caps every file's expiry, whatever its rule.
 */
export function keepPlan(config: RetentionConfig, project: ProjectRetention | null, defaults: RetentionDefaults, now: number): RetentionPlan {
  const projectRule = (project?.keep_until ?? undefined) as KeepUntil | undefined;
  const purge = project?.expires ?? null;
  const make = (when: KeepWhen, seconds: number, rule: KeepUntil): KeepRule => {
    const ruleExpiry = rule === 'expired' || rule === 'shippedOrExpired' ? now + seconds * 1000 : null;
    const until = purge === null ? ruleExpiry : ruleExpiry === null ? purge : Math.min(ruleExpiry, purge);
    return { onSuccess: when === 'always' || when === 'onsuccess', onError: when === 'always' || when === 'onerror', until, rule };
  };
  return {
    output: make(
      config.keepOutput ?? defaults.keepOutput,
      config.keepOutputForSeconds ?? defaults.keepOutputForSeconds,
      config.keepOutputUntil ?? projectRule ?? defaults.keepOutputUntil,
    ),
    log: make(
      config.keepLog ?? defaults.keepLog,
      config.keepLogForSeconds ?? defaults.keepLogForSeconds,
      config.keepLogUntil ?? projectRule ?? defaults.keepLogUntil,
    ),
  };
}

/** {@link keepPlan} for a ticket's project, read from the store; `config` is the step's resolved config.ion. */
export async function retentionPlan(ctx: Context, tenant: string, project: string, config: RetentionConfig, defaults: RetentionDefaults): Promise<RetentionPlan> {
  // The project's row as every ticket reads it (remembered until projects change).
  const row = await ctx.readMostly.findProject(tenant, project);
  return keepPlan(config, row ? { keep_until: row.keep_until, expires: row.expires } : null, defaults, ctx.now());
}
