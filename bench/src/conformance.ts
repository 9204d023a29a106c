/** A full conformance run, every profile, against a sandbox in memory. */
import { runConformance } from '@exchange-kit/conformance';
import { startSandbox } from '../../apps/sandbox/src/server.js';

export async function conformanceBench(): Promise<string> {
  const sandbox = await startSandbox({ port: 0, memory: true });
  try {
    const target = {
      exchangeUrl: sandbox.exchangeUrl,
      partnerUrl: sandbox.partnerUrl,
      ...sandbox.credentials,
    };
    const times: number[] = [];
    let summary = '';
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      const report = await runConformance(target);
      times.push(performance.now() - started);
      summary = `${report.results.length} requirements, ${report.calls} calls, ${JSON.stringify(report.summary)}`;
    }
    const median = times.sort((a, b) => a - b)[1] as number;
    return [
      '## Conformance',
      '',
      `A full run of every profile against the sandbox (in memory), median of 3: ${(median / 1000).toFixed(2)} s (${summary}). Target: at most 10 s.`,
    ].join('\n');
  } finally {
    await sandbox.close();
  }
}
