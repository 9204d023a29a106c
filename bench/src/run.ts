import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { clientBench } from './clients.js';
import { conformanceBench } from './conformance.js';
import { eventsBench } from './events.js';
import { nonceBench } from './nonce.js';
import { deepBookBench } from './sandbox/deep-book.js';
import { historyBench } from './sandbox/history.js';
import { matchingBench, sandboxBench } from './sandbox.js';

const parts = {
  clients: async () => (await clientBench()).markdown,
  nonce: nonceBench,
  sandbox: sandboxBench,
  events: eventsBench,
  conformance: conformanceBench,
};
// Named only: narrower runs of rows the sandbox part already measures.
const namedOnly = { matching: matchingBench, deep: deepBookBench, history: historyBench };
type Part = keyof typeof parts | keyof typeof namedOnly;
const runnable: Record<Part, () => Promise<string>> = { ...parts, ...namedOnly };

// Parts named on the command line run alone and go to results/parts.md: results/latest.md
// holds the figures of one whole run only.
const asked = process.argv.slice(2).filter((arg) => arg !== '--');
const unknown = asked.filter((name) => !(name in runnable));
if (unknown.length > 0) {
  console.error(`unknown part ${unknown.join(', ')}; parts: ${Object.keys(runnable).join(', ')}`);
  process.exit(2);
}
const chosen = (asked.length > 0 ? asked : Object.keys(parts)) as Part[];
const sections: string[] = [];
for (const name of chosen) sections.push(await runnable[name]());
const report = [
  '# exchange-kit benchmarks',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}. Every figure of a table comes from the same run; servers on 127.0.0.1.`,
  '',
  ...sections.flatMap((section) => [section, '']),
].join('\n');
const written = asked.length === 0 ? 'latest.md' : 'parts.md';
await writeFile(new URL(`../results/${written}`, import.meta.url), report);
console.log(report);
