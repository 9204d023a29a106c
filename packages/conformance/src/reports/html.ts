import { type Profile, profileNames } from '../engine/catalog.js';
import type { ConformanceReport, RequirementResult, Verdict } from '../engine/run.js';
import { stepLabel } from './console.js';
import { curlOf, redactSecrets } from './curl.js';
import { requirementDocsUrl } from './docs-link.js';

export interface HtmlOptions {
  /** The docs site each requirement links to its row on; the locally served docs by default. */
  docsUrl?: string;
}

const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

const colours: Record<Verdict, string> = {
  PASS: '#1a7f37',
  FAIL: '#cf222e',
  WARN: '#bf8700',
  SKIP: '#6e7781',
  ERROR: '#8250df',
  XFAIL: '#0969da',
  XPASS: '#bc4c00',
};

/** One self-contained HTML page: the requirement × profile matrix, then each non-pass in detail. */
export function toHtml(report: ConformanceReport, options: HtmlOptions = {}): string {
  const docs = (id: string) =>
    `<a class="docs" href="${escapeHtml(requirementDocsUrl(id, options.docsUrl))}" title="the requirement in the docs">docs</a>`;
  const used = profileNames.filter((profile) =>
    report.results.some((r) => r.profiles.includes(profile)),
  );
  // A requirement shared by several profiles has one verdict, from the profiles that ran: the
  // column of a profile left out of the run must not show it as if that profile had passed.
  const ran = new Set<string>(report.profiles);
  const cell = (result: RequirementResult, profile: Profile) => {
    if (!result.profiles.includes(profile)) return '<td></td>';
    if (!ran.has(profile)) return '<td class="not-run">not run</td>';
    return `<td>${badge(result.verdict)}</td>`;
  };
  const badge = (verdict: Verdict) =>
    `<span class="v" style="background:${colours[verdict]}">${verdict}</span>`;
  const rows = report.results
    .map(
      (result) =>
        `<tr><td><a href="#${escapeHtml(result.id)}">${escapeHtml(result.id)}</a> ${docs(result.id)}</td><td>${result.level}</td>${used.map((profile) => cell(result, profile)).join('')}<td>${escapeHtml(result.origin)}</td></tr>`,
    )
    .join('\n');
  const details = report.results
    .filter((result) => result.verdict !== 'PASS')
    .map((result) => {
      const item = result.evidence[0];
      return `<section id="${escapeHtml(result.id)}"><h3>${badge(result.verdict)} ${escapeHtml(result.id)}</h3>
<p>${escapeHtml(result.summary)}</p><p><em>${escapeHtml(result.origin)}</em> (${docs(result.id)})</p>${result.sentence ? `<blockquote>${escapeHtml(result.sentence)}</blockquote>` : ''}<p>${escapeHtml(result.message)}</p>
${item?.received ? `<div class="pair"><div><h4>Received</h4><pre>${escapeHtml(redactSecrets(item.received))}</pre></div><div><h4>Documented</h4><pre>${escapeHtml(item.documented ?? '')}</pre></div></div>` : ''}
${item?.call ? `<h4>Reproduce</h4><pre>${escapeHtml(curlOf(item.call))}</pre>` : ''}
${(item?.steps ?? []).map((step, index) => `<h4>${escapeHtml(stepLabel(result, index))}</h4><pre>${escapeHtml(curlOf(step))}</pre>`).join('\n')}</section>`;
    })
    .join('\n');
  const summary = Object.entries(report.summary)
    .filter(([, count]) => count > 0)
    .map(([verdict, count]) => `${badge(verdict as Verdict)} ${count}`)
    .join(' ');
  // Ids, URLs, bodies and curl lines have no space to break at: they break anywhere rather than
  // widen the page, and the matrix keeps to the page's width whatever its number of profiles.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>exchange-conformance ${escapeHtml(report.runId)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;overflow-wrap:anywhere}
table{border-collapse:collapse;table-layout:fixed;width:100%}td,th{border:1px solid #d0d7de;padding:4px 8px}
th{font-size:12px}th:first-child{width:28%}th:nth-child(2){width:4em}th:last-child{width:18%}
.docs{font-size:12px}.not-run{color:#6e7781;font-size:12px}.v{color:#fff;border-radius:4px;padding:1px 6px;font-size:12px}
.pair{display:flex;gap:1em}.pair>div{flex:1;min-width:0}pre{background:#f6f8fa;padding:8px;white-space:pre-wrap}</style></head>
<body><h1>exchange-conformance</h1>
<p>Run ${escapeHtml(report.runId)} at ${escapeHtml(report.startedAt)} against ${escapeHtml(report.target.exchangeUrl)} and ${escapeHtml(report.target.partnerUrl)}, ${report.durationMs} ms.</p>
<p>${summary}</p>
<table><thead><tr><th>Requirement</th><th>Level</th>${used.map((p) => `<th>${escapeHtml(p)}</th>`).join('')}<th>Origin</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${details}
</body></html>
`;
}
