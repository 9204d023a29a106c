import { it } from 'vitest';
import { runConformance } from './run.js';
import { startSandbox } from './testing/sandbox.js';

it('gen', async () => {
  const sandbox = await startSandbox();
  const t = performance.now();
  const report = await runConformance(sandbox.target, {
    seed: 'abc',
    maxExamples: 100,
    only: ['INPUT-GENERATED-VALID', 'INPUT-GENERATED-INVALID'],
  });
  console.log('took', performance.now() - t, report.calls);
  for (const r of report.results.filter((r) => r.verdict !== 'PASS' || r.id.includes('GENERATED')))
    console.log(r.id, r.verdict, r.message.slice(0, 600));
  console.log(report.summary);
  await sandbox.close();
}, 120000);
