import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { clientBench } from './clients.js';
import { conformanceBench } from './conformance.js';
import { sandboxBench } from './sandbox.js';

const clients = await clientBench();
const sandbox = await sandboxBench();
const conformance = await conformanceBench();
const report = [
  '# exchange-kit benchmarks',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}. Every figure of a table comes from the same run; servers on 127.0.0.1.`,
  '',
  clients.markdown,
  '',
  sandbox,
  '',
  conformance,
  '',
].join('\n');
await writeFile(new URL('../results/latest.md', import.meta.url), report);
console.log(report);
