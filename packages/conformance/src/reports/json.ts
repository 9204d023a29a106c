import type { Evidence, RecordedCall } from '../engine/outcome.js';
import type { ConformanceReport } from '../engine/run.js';
import { curlOf, redactSecrets } from './curl.js';

/** The JSON report: the run report with each evidence's call as a redacted curl command. */
export function toJson(report: ConformanceReport): string {
  const callOf = (call: RecordedCall) => ({
    operationId: call.operationId,
    method: call.method,
    url: call.url,
    status: call.status,
    violations: call.violations,
    curl: curlOf(call),
  });
  const evidence = (item: Evidence) => ({
    outcome: item.outcome,
    message: item.message,
    received: item.received === undefined ? undefined : redactSecrets(item.received),
    documented: item.documented,
    call: item.call && callOf(item.call),
    steps: item.steps?.map(callOf),
  });
  return `${JSON.stringify(
    {
      ...report,
      results: report.results.map((result) => ({
        ...result,
        evidence: result.evidence.map(evidence),
      })),
    },
    null,
    2,
  )}\n`;
}
