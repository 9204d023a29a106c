/**
 * The CLI as an implementer runs it: the built package linked into a scratch project outside
 * the repository, run by plain Node (no TypeScript loader of ours), with the guide's own
 * `adapter.ts` given as it is.
 */
import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandboxTarget } from '../testing/sandbox.js';
import type { Target } from './target.js';

const run = promisify(execFile);
const packages = fileURLToPath(new URL('../../../', import.meta.url));
const guideAdapter = fileURLToPath(
  new URL('../../../../apps/docs/examples/server/adapter.ts', import.meta.url),
);
// The built package and what it imports of the workspace (turbo builds them before this test).
const linked = ['conformance', 'contract', 'core'];

let scratch: string;
let sandbox: Awaited<ReturnType<typeof startSandboxTarget>>;
let target: Target;

beforeAll(async () => {
  for (const name of linked) {
    await access(join(packages, name, 'dist')).catch(() => {
      throw new Error(`packages/${name}/dist is missing: run pnpm build first`);
    });
  }
  scratch = await mkdtemp(join(tmpdir(), 'conformance-adapter-'));
  await mkdir(join(scratch, 'node_modules', '@exchange-kit'), { recursive: true });
  for (const name of linked) {
    await symlink(
      join(packages, name),
      join(scratch, 'node_modules', '@exchange-kit', name),
      'dir',
    );
  }
  await writeFile(join(scratch, 'package.json'), '{ "type": "module" }\n');
  await copyFile(guideAdapter, join(scratch, 'adapter.ts'));
  sandbox = await startSandboxTarget();
  target = sandbox.target;
});

afterAll(async () => {
  await sandbox?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it("loads the guide's TypeScript adapter as given, with plain node", async () => {
  const bin = join(scratch, 'node_modules/@exchange-kit/conformance/bin/exchange-conformance.js');
  // No loader this test runs under may reach the child: it sees what an implementer's shell has.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const { stdout } = await run(
    process.execPath,
    [
      bin,
      'run',
      '--exchange-url',
      target.exchangeUrl,
      '--token-id',
      target.tokenId,
      '--token-secret',
      target.tokenSecret,
      '--profile',
      'orders',
      '--only',
      'ORDER-CANCEL-ALL-SKIPS-CONDITIONAL',
      '--adapter',
      './adapter.ts',
    ],
    { cwd: scratch, env },
  );
  // The adapter sets placeConditionalOrders to null: its reason shows it was the one loaded.
  expect(stdout).toMatch(
    /^SKIP {3}ORDER-CANCEL-ALL-SKIPS-CONDITIONAL {2}the adapter says the server cannot place conditional orders$/m,
  );
});
