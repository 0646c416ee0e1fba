import { AppError } from '../../errors.js';
import { ConfigFileError, parseIon, parseIonStruct, type ConfigProblem } from './parse.js';
import { configKindOf, stepSchemas, type StepName } from './steps.js';
import { validateValue } from './validate.js';

/** Validates a parsed config against its step's schema: dotted keys nested, sealed secrets as strings, nulls kept. Throws ConfigFileError. */
export function normalizeConfig(step: StepName, raw: Record<string, unknown>): Record<string, unknown> {
  const problems: ConfigProblem[] = [];
  const value = validateValue(stepSchemas[step], raw, '', problems) as Record<string, unknown>;
  if (problems.length > 0) throw new ConfigFileError(problems);
  return value;
}

/** Parses and validates one step's config file. Throws ConfigFileError. */
export function readConfigFile(step: StepName, data: Buffer | string): Record<string, unknown> {
  return normalizeConfig(step, parseIonStruct(data));
}

/** The invalid_config error for a file: the message names the file and the first property. */
export function invalidConfig(path: string, err: ConfigFileError): AppError {
  const [first] = err.problems;
  const head = first ? (first.field ? `${first.field} ${first.message}` : first.message) : 'invalid';
  const more = err.problems.length > 1 ? ` (and ${err.problems.length - 1} more problems, see details)` : '';
  return new AppError('invalid_config', `${path}: ${head}${more}`, {
    details: err.problems.map((p) => ({ ...(p.field ? { field: p.field } : {}), message: p.message })),
  });
}

/**
 * Checks a file about to be written to the repository: step config files against their
 * schema, any other `.ion` file for valid Ion; other files pass. Throws 400 invalid_config.
 */
export function checkRepositoryFile(path: string, data: Buffer): void {
  const kind = configKindOf(path);
  if (!kind && !path.endsWith('.ion')) return;
  try {
    if (kind) readConfigFile(kind.step, data);
    else parseIon(data);
  } catch (err) {
    if (err instanceof ConfigFileError) throw invalidConfig(path, err);
    throw err;
  }
}
