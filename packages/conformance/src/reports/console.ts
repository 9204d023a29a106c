import type { ConformanceReport, RequirementResult } from '../engine/run.js';
import { curlOf, redactSecrets } from './curl.js';

const indent = (text: string, by = '      ') =>
  text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

/** A read-back of a check, or for a failing sequence one of the calls that led to the failure. */
export const stepLabel = (result: Pick<RequirementResult, 'kind'>, index: number) =>
  result.kind === 'model' ? `step ${index + 1} of the sequence` : `read back ${index + 1}`;

/** One line per requirement as its verdict is known; failures with received, documented and curl. */
export function consoleLine(result: RequirementResult): string {
  const line = `${result.verdict.padEnd(5)}  ${result.id}  ${result.message}`;
  if (!['FAIL', 'WARN', 'ERROR', 'XPASS'].includes(result.verdict)) return line;
  const item = result.evidence[0];
  const parts = [line];
  if (item?.received) parts.push(indent(`received:   ${redactSecrets(item.received)}`));
  if (item?.documented) parts.push(indent(`documented: ${item.documented}`));
  if (item?.call) parts.push(indent(curlOf(item.call)));
  for (const [index, step] of (item?.steps ?? []).entries()) {
    parts.push(
      indent(
        `${stepLabel(result, index)}: ${step.method} ${new URL(step.url).pathname} answered ${step.status}`,
      ),
    );
    parts.push(indent(curlOf(step)));
  }
  return parts.join('\n');
}

export function consoleSummary(report: ConformanceReport): string {
  const counts = Object.entries(report.summary)
    .filter(([, count]) => count > 0)
    .map(([verdict, count]) => `${count} ${verdict}`)
    .join(', ');
  const lines = [
    ``,
    `${report.results.length} requirements in ${(report.durationMs / 1000).toFixed(1)} s (${report.calls} calls): ${counts}`,
  ];
  if (report.stateless) lines.push(report.stateless);
  if (report.mustFailures.length > 0)
    lines.push(`MUST requirements not met: ${report.mustFailures.join(', ')}`);
  if (report.leftovers.length > 0)
    lines.push(`orders the run could not cancel: ${report.leftovers.join(', ')}`);
  lines.push(`replay this run with --seed ${report.seed}`);
  return lines.join('\n');
}
