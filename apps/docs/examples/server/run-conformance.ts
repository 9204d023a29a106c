// #region run

import { writeFile } from 'node:fs/promises';
import { runConformance, toJson, toJunit } from '@exchange-kit/conformance';
import { env } from '../sandbox-env.js';

const report = await runConformance(
  {
    exchangeUrl: env.exchangeUrl,
    partnerUrl: env.partnersUrl,
    tokenId: env.tokenId,
    tokenSecret: env.tokenSecret,
    publicApiKey: env.publicApiKey,
  },
  {
    profiles: ['orders', 'loan-book'],
    onResult: (result) => console.log(`${result.verdict.padEnd(5)} ${result.id}`),
  },
);
console.log(JSON.stringify(report.summary));
await writeFile('conformance.xml', toJunit(report));
await writeFile('conformance.json', toJson(report));
if (report.mustFailures.length > 0) process.exitCode = 1;
// #endregion run
