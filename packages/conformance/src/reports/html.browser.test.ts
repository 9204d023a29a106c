/**
 * The HTML report in Chromium at 1280 px: long failure messages, URLs, bodies and curl lines
 * wrap inside the page instead of widening it.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '@exchange-kit/test-support/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { profileNames } from '../engine/catalog.js';
import type { RecordedCall } from '../engine/outcome.js';
import type { ConformanceReport, RequirementResult } from '../engine/run.js';
import { forgeJwt } from '../signing/forge.js';
import { toHtml } from './html.js';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const long = (unit: string, times: number) => Array.from({ length: times }, () => unit).join('');
const url = `http://127.0.0.1:4000/orders?client_order_id=${long('ck1234abcd-', 30)}&limit=1`;
const call: RecordedCall = {
  operationId: 'getOrders',
  method: 'GET',
  url,
  requestHeaders: {
    'X-Service-Auth': forgeJwt({ token_id: '42', path: new URL(url).pathname }, { secret: 'x' }),
  },
  status: 500,
  contentType: 'application/json',
  responseText: JSON.stringify({ message: long('unbroken', 60), detail: long('a', 300) }),
  violations: [],
  durationMs: 3,
};

const failed: RequirementResult = {
  id: 'RESPONSE-CANCEL-ORDER-BY-CLIENT-ORDER-ID-AND-PRODUCT',
  level: 'MUST',
  kind: 'response',
  profiles: [...profileNames],
  origin: `spec ${long('/components/schemas/CancelledOrder', 6)}`,
  summary: 'every response of the operation is documented',
  sentence: long('A sentence without a break ', 3) + long('x', 400),
  verdict: 'FAIL',
  message: `the shortest sequence found: ${long('place(primary,buy),edit(#0,by_id,quantity),', 12)}; reproduce with --seed ${long('s', 200)}`,
  evidence: [
    {
      requirementId: 'RESPONSE-CANCEL-ORDER-BY-CLIENT-ORDER-ID-AND-PRODUCT',
      outcome: 'fail',
      message: 'answered 500',
      received: call.responseText,
      documented: `status 200 and ${long('/paths/~1orders~1{order_id}~1cancel/put/responses/200', 4)}`,
      call,
      steps: [call],
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
    exchangeUrl: `http://127.0.0.1:4000/${long('base/', 40)}`,
    partnerUrl: 'http://127.0.0.1:4000',
    tokenId: '42',
    publicApiKey: 'pk',
  },
  profiles: [...profileNames],
  summary: { PASS: 0, FAIL: 2, WARN: 0, SKIP: 0, ERROR: 0, XFAIL: 0, XPASS: 0 },
  mustFailures: [failed.id],
  results: [failed, { ...failed, id: 'ORDER-CANCEL-LIVE', kind: 'state-table' }],
  leftovers: [],
  calls: 2,
};

it('fits 1280 px with long failure messages, URLs and curl lines', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.setContent(toHtml(report));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  // A look at it, for whoever changes the page: the path is printed when the width is wrong.
  const screenshot = join(tmpdir(), 'conformance-report-1280.png');
  await page.screenshot({ path: screenshot, fullPage: true });
  expect(width, `see ${screenshot}`).toBeLessThanOrEqual(1280);
  await page.close();
});
