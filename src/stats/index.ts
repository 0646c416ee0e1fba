export { recordUsage, usageRows, type UsageCounters } from './usage.js';
export { stepUsage } from './step-usage.js';
export { summaries, type SummaryQuery, type SummaryStatus } from './summary.js';
export { globalStatistics, tenantStatistics, projectStatistics, type StatisticsParams } from './service.js';
export { statsUnits, intervalStart, intervalEnd, type StatsUnit } from './units.js';
