/**
 * `pnpm registry`: the packages of this clone, released as the rehearsal releases them, on a
 * registry that stays up until Ctrl-C. For installing them with npm before they are on npm.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRegistry } from './registry.js';
import { rehearseRelease } from './rehearsal.js';

const args = process.argv.slice(2);
if (args[0] === '--') args.shift();
const { values } = parseArgs({ args, options: { port: { type: 'string', default: '4873' } } });
const port = Number(values.port);

const scratch = await mkdtemp(join(tmpdir(), 'exchange-kit-release-'));
const registry = await startRegistry(port).catch((error: NodeJS.ErrnoException) => {
  console.error(
    error.code === 'EADDRINUSE'
      ? `registry: port ${port} is in use (--port to choose another)`
      : `registry: ${error.message}`,
  );
  process.exit(1);
});
const stop = async () => {
  await registry.stop();
  await rm(scratch, { recursive: true, force: true });
};
try {
  console.log('building, versioning and publishing the packages of this clone...');
  const { released } = await rehearseRelease(registry, scratch);
  for (const pkg of released) console.log(`  ${pkg.name}@${pkg.version}`);
} catch (error) {
  console.error(`registry: the release failed: ${(error as Error).message}`);
  await stop();
  process.exit(1);
}
console.log(`\nregistry: ${registry.url}`);
console.log(
  "put this line in your project's .npmrc (or your ~/.npmrc), then npm install as the guides say:",
);
console.log(`  @exchange-kit:registry=${registry.url}`);
console.log('Ctrl-C stops the registry');
// A Ctrl-C under pnpm arrives twice (from the terminal, and forwarded by pnpm): the signals
// after the first are let be, so the process ends by its own exit code, not killed by one.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stop().then(() => process.exit(0));
  });
}
