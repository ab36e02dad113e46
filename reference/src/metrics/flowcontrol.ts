// API priority and fairness metrics: each priority level's nominal concurrency limit, as the
// classifier computes it (flowcontrol/classifier.ts), counted at scrape time.
import type { FlowClassifier } from '../flowcontrol/classifier.ts';
import { FLOWCONTROL_NOMINAL_LIMIT_SEATS } from './catalog.ts';
import type { MetricsRegistry } from './registry.ts';

export function registerFlowControlMetrics(reg: MetricsRegistry, flowcontrol: FlowClassifier): void {
  reg.gauge(FLOWCONTROL_NOMINAL_LIMIT_SEATS, (emit) => {
    for (const [level, limit] of flowcontrol.nominalLimits()) emit([level], limit);
  });
}
