// @vitest-environment node
/**
 * The peer range says React 18 or 19; the workspace runs 19. This installs React 18 (with the
 * same TanStack Query and Testing Library) into a scratch project, copies the built hooks in so
 * that they resolve React from there, and runs a session and transaction flow against the sandbox.
 */
import { execFile } from 'node:child_process';
import { access, cp, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type SandboxProcess, startSandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const hooks = fileURLToPath(new URL('../', import.meta.url));
const packages = fileURLToPath(new URL('../../', import.meta.url));
const scratch = join(hooks, 'node_modules', '.cache', 'react18');
const dependencies = [
  'react@18.3.1',
  'react-dom@18.3.1',
  '@tanstack/react-query@5.108.0',
  '@testing-library/react@16.3.3',
  '@testing-library/dom@10.4.2',
  'jsdom@29.1.1',
];

let sandbox: SandboxProcess;

beforeAll(async () => {
  const installed = await access(join(scratch, 'node_modules', 'react-dom', 'package.json')).then(
    () => true,
    () => false,
  );
  if (!installed) {
    await mkdir(scratch, { recursive: true });
    await run('npm', [
      'install',
      '--no-save',
      '--no-package-lock',
      '--prefix',
      scratch,
      ...dependencies,
    ]);
  }
  const target = join(scratch, 'node_modules', '@exchange-kit');
  await rm(target, { recursive: true, force: true });
  await mkdir(join(target, 'react-hooks'), { recursive: true });
  // Copied, not linked: a link would resolve React from the workspace, which has 19.
  await cp(join(hooks, 'dist'), join(target, 'react-hooks', 'dist'), { recursive: true });
  await cp(join(hooks, 'package.json'), join(target, 'react-hooks', 'package.json'));
  for (const name of ['partner-client', 'core']) {
    await symlink(join(packages, name), join(target, name), 'dir');
  }
  await cp(join(hooks, 'consumers', 'react18', 'flow.mjs'), join(scratch, 'flow.mjs'));
  // A service that requires the session JWT: the built hooks sign on React 18 too.
  sandbox = await startSandboxProcess(60_000, ['--require-session-auth']);
}, 180_000);

afterAll(() => sandbox?.stop());

describe('React 18', () => {
  it('runs the session and transaction hooks, StrictMode included, on React 18', async () => {
    const { stdout } = await run(process.execPath, ['flow.mjs'], {
      cwd: scratch,
      env: {
        ...process.env,
        PARTNERS_URL: sandbox.partnerUrl,
        PUBLIC_API_KEY: sandbox.publicApiKey,
      },
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(seen).toMatchObject({
      react: expect.stringMatching(/^18\./),
      environment: 'SANDBOX',
      first: 'SETTLEMENT_METHOD_REQUIRED',
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(seen.afterMethods).not.toBe('SETTLEMENT_METHOD_REQUIRED');
  }, 60_000);
});
