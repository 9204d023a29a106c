/** A full conformance run, every profile, against a sandbox in memory. */
import { runConformance } from '@exchange-kit/conformance';
import { startSandbox } from '@exchange-kit/sandbox/bench';

export async function conformanceBench(): Promise<string> {
  const sandbox = await startSandbox({ port: 0, memory: true });
  try {
    const target = {
      exchangeUrl: sandbox.exchangeUrl,
      partnerUrl: sandbox.partnerUrl,
      ...sandbox.credentials,
    };
    // One scenario at a time, then side by side: the medians of 3 runs each, taken in turns so
    // both see the same warm sandbox.
    const times: Record<number, number[]> = { 1: [], 4: [] };
    let summary = '';
    for (let run = 0; run < 3; run++) {
      for (const concurrency of [1, 4]) {
        const started = performance.now();
        const report = await runConformance(target, { concurrency });
        times[concurrency]?.push(performance.now() - started);
        summary = `${report.results.length} requirements, ${report.calls} calls, ${JSON.stringify(report.summary)}`;
      }
    }
    const median = (values: number[] = []) =>
      ((values.sort((a, b) => a - b)[1] as number) / 1000).toFixed(2);
    return [
      '## Conformance',
      '',
      `A full run of every profile against the sandbox (in memory), median of 3 (${summary}). Target: at most 10 s.`,
      '',
      '| run | time |',
      '| --- | ---: |',
      `| one scenario at a time | ${median(times[1])} s |`,
      `| \`--concurrency 4\` | ${median(times[4])} s |`,
      '',
      'The sandbox runs in this process here and answers in about a millisecond, so the suite and the server share one thread: side by side gains little. Against a sandbox in its own process the conformance tests print both times.',
    ].join('\n');
  } finally {
    await sandbox.close();
  }
}
