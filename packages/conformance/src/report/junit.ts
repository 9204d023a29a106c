import type { ConformanceReport } from '../run.js';
import { curlOf, redactSecrets } from './curl.js';

// XML 1.0 has no way to write most control characters; they are dropped.
const printable = (text: string) =>
  [...text]
    .filter((char) => {
      const code = char.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join('');

const escapeXml = (text: string) =>
  printable(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** JUnit XML: one testsuite per profile, one testcase per requirement named by its id. */
export function toJunit(report: ConformanceReport): string {
  const suites = new Map<string, typeof report.results>();
  for (const result of report.results) {
    const profile = result.profiles[0] ?? 'other';
    suites.set(profile, [...(suites.get(profile) ?? []), result]);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = report.results.filter(
    (r) => r.verdict === 'FAIL' || r.verdict === 'WARN',
  ).length;
  const errors = report.results.filter((r) => r.verdict === 'ERROR').length;
  const skipped = report.results.filter(
    (r) => r.verdict === 'SKIP' || r.verdict === 'XFAIL',
  ).length;
  lines.push(
    `<testsuites name="exchange-conformance" tests="${report.results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
  );
  for (const [profile, results] of suites) {
    lines.push(`  <testsuite name="${escapeXml(profile)}" tests="${results.length}">`);
    for (const result of results) {
      lines.push(
        `    <testcase name="${escapeXml(result.id)}" classname="${escapeXml(`${profile}.${result.level}`)}">`,
      );
      const detail = result.evidence[0];
      const body = [
        result.origin,
        detail?.received && `received: ${redactSecrets(detail.received)}`,
        detail?.documented && `documented: ${detail.documented}`,
        detail?.call && curlOf(detail.call),
      ]
        .filter(Boolean)
        .join('\n');
      if (result.verdict === 'FAIL' || result.verdict === 'WARN') {
        lines.push(
          `      <failure message="${escapeXml(result.message)}" type="${result.verdict}">${escapeXml(body)}</failure>`,
        );
      } else if (result.verdict === 'ERROR') {
        lines.push(
          `      <error message="${escapeXml(result.message)}">${escapeXml(body)}</error>`,
        );
      } else if (result.verdict === 'SKIP' || result.verdict === 'XFAIL') {
        lines.push(
          `      <skipped message="${escapeXml(`${result.verdict}: ${result.message}`)}"/>`,
        );
      } else if (result.verdict === 'XPASS') {
        lines.push(`      <system-out>${escapeXml(result.message)}</system-out>`);
      }
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
