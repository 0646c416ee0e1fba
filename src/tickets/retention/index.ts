export { keepPlan, retentionPlan, retentionDefaults, type KeepRule, type KeepWhen, type RetentionDefaults, type RetentionPlan, type ProjectRetention } from './keep-rules.js';
export { runHousekeeping, type HousekeepingOptions, type HousekeepingResult } from './housekeeping.js';
export { housekeepingTick, startHousekeeping, HOUSEKEEPING_DUE_KEY, TEMP_SWEEP_DUE_KEY, type Housekeeping } from './scheduler.js';
