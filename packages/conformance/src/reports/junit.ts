import type { ConformanceReport } from '../engine/run.js';
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

const seconds = (ms: number) => (ms / 1000).toFixed(3);

type Results = ConformanceReport['results'];

// The counts the JUnit schema gives every testsuite (and the testsuites root): CI servers
// read them rather than counting the testcases.
function counts(results: Results): string {
  const failures = results.filter((r) => r.verdict === 'FAIL' || r.verdict === 'WARN').length;
  const errors = results.filter((r) => r.verdict === 'ERROR').length;
  const skipped = results.filter((r) => r.verdict === 'SKIP' || r.verdict === 'XFAIL').length;
  return `tests="${results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}"`;
}

/**
 * JUnit XML: one testsuite per profile, one testcase per requirement named by its id; each
 * suite with its tests, failures, errors, skipped and time, each testcase with its time.
 */
export function toJunit(report: ConformanceReport): string {
  const suites = new Map<string, typeof report.results>();
  for (const result of report.results) {
    const profile = result.profiles[0] ?? 'other';
    suites.set(profile, [...(suites.get(profile) ?? []), result]);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites name="exchange-conformance" ${counts(report.results)} time="${seconds(report.durationMs)}">`,
  );
  for (const [profile, results] of suites) {
    // Scenarios may run side by side, so a suite's time is the sum of its testcases' times.
    const time = results.reduce((sum, result) => sum + result.durationMs, 0);
    lines.push(
      `  <testsuite name="${escapeXml(profile)}" ${counts(results)} time="${seconds(time)}" timestamp="${report.startedAt.slice(0, 19)}" hostname="${escapeXml(new URL(report.target.exchangeUrl).host)}">`,
    );
    for (const result of results) {
      lines.push(
        `    <testcase name="${escapeXml(result.id)}" classname="${escapeXml(`${profile}.${result.level}`)}" time="${seconds(result.durationMs)}">`,
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
