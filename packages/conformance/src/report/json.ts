import type { Evidence } from '../outcome.js';
import type { ConformanceReport } from '../run.js';
import { curlOf, redactSecrets } from './curl.js';

/** The JSON report: the run report with each evidence's call as a redacted curl command. */
export function toJson(report: ConformanceReport): string {
  const evidence = (item: Evidence) => ({
    outcome: item.outcome,
    message: item.message,
    received: item.received === undefined ? undefined : redactSecrets(item.received),
    documented: item.documented,
    call: item.call && {
      operationId: item.call.operationId,
      method: item.call.method,
      url: item.call.url,
      status: item.call.status,
      violations: item.call.violations,
      curl: curlOf(item.call),
    },
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
