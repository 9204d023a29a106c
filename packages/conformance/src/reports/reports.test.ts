import { describe, expect, it } from 'vitest';
import type { RecordedCall } from '../engine/outcome.js';
import type { ConformanceReport, RequirementResult } from '../engine/run.js';
import { forgeJwt } from '../signing/forge.js';
import { checkJunit, parseXml } from '../testing/junit-schema.js';
import { curlOf } from './curl.js';
import { defaultDocsUrl } from './docs-link.js';
import { toHtml } from './html.js';
import { toJson } from './json.js';
import { toJunit } from './junit.js';

const secret = 'the-token-secret';
const call: RecordedCall = {
  operationId: 'cancelOrder',
  method: 'PUT',
  url: 'http://127.0.0.1:4000/orders/7/cancel',
  requestHeaders: {
    'X-Service-Auth': forgeJwt({ token_id: '42', path: '/orders/7/cancel', nonce: 1 }, { secret }),
  },
  status: 200,
  contentType: 'application/json',
  responseText: '{"session_secret":"s3cr3t","status":"live"}',
  violations: [],
  durationMs: 3,
};

const failed: RequirementResult = {
  id: 'ORDER-CANCEL-LIVE',
  level: 'MUST',
  kind: 'state-table',
  profiles: ['orders'],
  origin: 'Order, row 1',
  summary: 'cancel a live order',
  verdict: 'FAIL',
  message: 'order 7 is still live <after> its cancel',
  evidence: [
    {
      requirementId: 'ORDER-CANCEL-LIVE',
      outcome: 'fail',
      message: 'still live',
      received: call.responseText,
      documented: 'next state cancelled',
      call,
      steps: [
        {
          ...call,
          operationId: 'getOrder',
          method: 'GET',
          url: 'http://127.0.0.1:4000/orders/7',
          signing: { tokenId: '42', path: '/orders/7' },
        },
      ],
    },
  ],
  durationMs: 41,
};

const report: ConformanceReport = {
  schemaVersion: 1,
  runId: 'ck1',
  seed: 'fixed',
  startedAt: '2026-11-22T00:00:00.000Z',
  durationMs: 1234,
  target: {
    exchangeUrl: 'http://127.0.0.1:4000',
    partnerUrl: 'http://127.0.0.1:4000',
    tokenId: '42',
    publicApiKey: 'pk',
  },
  profiles: ['orders'],
  summary: { PASS: 1, FAIL: 1, WARN: 0, SKIP: 1, ERROR: 1, XFAIL: 0, XPASS: 0 },
  mustFailures: ['ORDER-CANCEL-LIVE'],
  results: [
    failed,
    { ...failed, id: 'ORDER-EDIT-LIVE', verdict: 'PASS', message: 'ok', evidence: [] },
    {
      ...failed,
      id: 'ORDER-CANCEL-ALL-SKIPS-CONDITIONAL',
      verdict: 'SKIP',
      message: 'no margin',
      evidence: [],
      durationMs: 5,
    },
    {
      ...failed,
      id: 'AUTH-ALG-NONE',
      profiles: ['auth'],
      verdict: 'ERROR',
      message: 'no fixture',
      evidence: [],
      durationMs: 7,
    },
  ],
  leftovers: [],
  calls: 2,
};

describe('reports', () => {
  it('shows a JWT in curl by its payload, never the secret or the signature', () => {
    const curl = curlOf(call);
    expect(curl).toContain(`curl -i -X PUT 'http://127.0.0.1:4000/orders/7/cancel'`);
    expect(curl).toContain(
      '<JWT HS256 {"token_id":"42","path":"/orders/7/cancel","nonce":1}, signed with the token secret>',
    );
    expect(curl).not.toContain(call.requestHeaders['X-Service-Auth']?.split('.')[2]);
  });

  it('signs a JWT made with the token secret anew in curl, and shows a forged one as sent', () => {
    const signed = curlOf({ ...call, signing: { tokenId: '42', path: "/orders/7/cancel?a='b'" } });
    expect(signed).toContain(
      `-H "X-Service-Auth: $(npx exchange-conformance sign --token-id '42' --path '/orders/7/cancel?a='\\''b'\\''')"`,
    );
    expect(signed).not.toContain(call.requestHeaders['X-Service-Auth']?.split('.')[2]);
    const forged = forgeJwt({ token_id: '42', path: '/orders/7/cancel' }, { alg: 'none' });
    const shown = curlOf({
      ...call,
      requestHeaders: { 'X-Service-Auth': forged },
      signing: 'as-sent',
    });
    expect(shown).toContain(`-H 'X-Service-Auth: ${forged}'`);
  });

  it('writes JUnit with one testcase per requirement id', () => {
    const junit = toJunit(report);
    expect(junit).toContain(
      '<testcase name="ORDER-CANCEL-LIVE" classname="orders.MUST" time="0.041">',
    );
    expect(junit).toContain(
      '<failure message="order 7 is still live &lt;after&gt; its cancel" type="FAIL">',
    );
    expect(junit).toContain('<testcase name="ORDER-EDIT-LIVE"');
    expect(junit).not.toContain('s3cr3t');
  });

  it('writes JUnit of the schema shape, with failures, errors, skipped and time on every suite', () => {
    const root = parseXml(toJunit(report));
    checkJunit(root);
    const suites = root.children.filter((child) => child.name === 'testsuite');
    expect(suites.map((suite) => suite.attributes)).toEqual([
      expect.objectContaining({
        name: 'orders',
        tests: '3',
        failures: '1',
        errors: '0',
        skipped: '1',
        time: '0.087',
      }),
      expect.objectContaining({
        name: 'auth',
        tests: '1',
        failures: '0',
        errors: '1',
        skipped: '0',
        time: '0.007',
      }),
    ]);
    expect(root.attributes).toMatchObject({ tests: '4', failures: '1', errors: '1', skipped: '1' });
  });

  it('writes JSON with each call as a curl and secrets masked', () => {
    const json = JSON.parse(toJson(report));
    expect(json.results[0].evidence[0].call.curl).toContain('curl -i -X PUT');
    expect(json.results[0].evidence[0].received).toContain('"session_secret":"<redacted>"');
    expect(json.results[0].evidence[0].steps[0].curl).toContain(
      `$(npx exchange-conformance sign --token-id '42' --path '/orders/7')`,
    );
  });

  it('writes JUnit and HTML again from a report read back from its JSON, with its curl lines', () => {
    const read = JSON.parse(toJson(report)) as typeof report;
    expect(toJunit(read)).toContain('curl -i -X PUT');
    expect(toHtml(read)).toContain('<section id="ORDER-CANCEL-LIVE">');
  });

  it('writes an HTML matrix and the detail of each failure', () => {
    const html = toHtml(report);
    expect(html).toContain('<th>orders</th>');
    expect(html).toContain('<section id="ORDER-CANCEL-LIVE">');
    expect(html).toContain('next state cancelled');
    expect(html).not.toContain('s3cr3t');
  });

  it('shows a verdict only under the profiles that ran, "not run" under the others', () => {
    const shared: RequirementResult = {
      ...failed,
      id: 'STATUS-200-SUCCESS',
      profiles: ['orders', 'loan-book', 'oauth', 'partner-sessions'],
      verdict: 'PASS',
      message: 'ok',
      evidence: [],
    };
    const html = toHtml({
      ...report,
      profiles: ['orders', 'loan-book'],
      results: [shared, { ...failed, id: 'OAUTH-REQUEST-X', profiles: ['oauth'] }],
    });
    const header = [
      ...(/<thead>(.*?)<\/thead>/s.exec(html)?.[1] ?? '').matchAll(/<th>([^<]*)<\/th>/g),
    ].map((m) => m[1]);
    const row = /<tr><td><a href="#STATUS-200-SUCCESS">.*?<\/tr>/s.exec(html)?.[0] ?? '';
    const cells = [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) =>
      m[1]?.replace(/<[^>]+>/g, ''),
    );
    const under = (profile: string) => cells[header.indexOf(profile)];
    expect(under('orders')).toBe('PASS');
    expect(under('loan-book')).toBe('PASS');
    expect(under('oauth')).toBe('not run');
    expect(under('partner-sessions')).toBe('not run');
  });

  it('links each requirement of the HTML report to its row on the docs site given', () => {
    const html = toHtml(report, { docsUrl: 'https://docs.example/exchange-kit' });
    const links = new Set(
      [...html.matchAll(/href="(https:\/\/docs\.example[^"]*)"/g)].map((m) => m[1]),
    );
    expect(links).toEqual(
      new Set(
        report.results.map(
          (r) =>
            `https://docs.example/exchange-kit/reference/conformance.html#${r.id.toLowerCase()}`,
        ),
      ),
    );
    expect(toHtml(report)).toContain(
      `href="${defaultDocsUrl}reference/conformance.html#order-cancel-live"`,
    );
  });
});
