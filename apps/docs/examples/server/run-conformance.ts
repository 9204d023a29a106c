import { writeFile } from 'node:fs/promises';
import { runConformance, toJson, toJunit } from '@exchange-kit/conformance';

// The sandbox's variables and demo values; point them at your own server.
const url = process.env.SANDBOX_URL ?? 'http://127.0.0.1:4000';
const report = await runConformance(
  {
    exchangeUrl: url,
    partnerUrl: url,
    tokenId: process.env.SANDBOX_TOKEN_ID ?? '3141592',
    tokenSecret: process.env.SANDBOX_TOKEN_SECRET ?? 'sandbox-demo-secret-not-for-production-use',
    publicApiKey: process.env.SANDBOX_PUBLIC_API_KEY ?? 'pk_sandbox_demo',
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
