/** One `redeliverOnError` rule of a step's config. */
export interface RedeliveryRule {
  codePattern?: string;
  maxRedeliveries?: number;
  redeliverIntervalMillis?: number;
  maxAgeMillis?: number;
}

/**
 * Decides whether a failed step runs again: the first rule whose `codePattern` matches the
 * errorCode applies (no pattern matches any); none matching means no redelivery.
 * Returns the delay before the next attempt, or null when the failure is terminal.
 */
export function redeliveryDelay(rules: unknown, errorCode: string, redeliveries: number, ageMs: number): number | null {
  if (!Array.isArray(rules)) return null;
  for (const rule of rules as RedeliveryRule[]) {
    if (rule.codePattern !== undefined && !matchesWhole(rule.codePattern, errorCode)) continue;
    const max = rule.maxRedeliveries ?? 0;
    if (redeliveries >= max) return null;
    if (rule.maxAgeMillis && ageMs > rule.maxAgeMillis) return null;
    return rule.redeliverIntervalMillis ?? 0;
  }
  return null;
}

function matchesWhole(pattern: string, code: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(code);
  } catch {
    return false;
  }
}
