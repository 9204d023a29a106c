import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleSummary } from '../reports/console.js';
import { startStatelessServer } from '../testing/stateless-server.js';
import { runConformance } from './run.js';

let server: Awaited<ReturnType<typeof startStatelessServer>>;

beforeAll(async () => {
  server = await startStatelessServer();
});
afterAll(async () => {
  await server?.close();
});

it('says a partner server keeps no state, and what needs state is ERROR, not FAIL', async () => {
  const report = await runConformance(
    {
      exchangeUrl: server.url,
      partnerUrl: server.url,
      tokenId: '42',
      tokenSecret: 'secret',
      publicApiKey: 'pk_test',
    },
    { profiles: ['partner-sessions', 'partner-transactions'] },
  );
  expect(report.stateless).toMatch(
    /^the server does not seem to keep state: .* was given id \S+, the id of .* made before it$/,
  );
  // Each needs two distinct things of the server: intents, sessions, or a quote it remembers.
  const stateful = [
    'INTENT-ONE-TO-ONE-CONSUMED',
    'INTENT-ONE-TO-MANY-REUSABLE',
    'AUTH-CLIENT-REF-OTHER-SESSION',
    'INPUT-QUANTITY-2-NOT-QUOTED',
  ];
  for (const id of stateful) {
    expect(report.results.find((result) => result.id === id)).toMatchObject({
      verdict: 'ERROR',
      message: expect.stringContaining('precondition does not hold'),
    });
  }
  expect(consoleSummary(report).split('does not seem to keep state')).toHaveLength(2);
});
