import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { catalog } from './catalog.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

async function conformance(...args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, ['--conditions=@exchange-kit/source', cli, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `run` with every argument it needs, against a port where nothing listens. */
const runAgainstNothing = [
  'run',
  '--exchange-url',
  'http://127.0.0.1:9',
  '--token-id',
  'id',
  '--token-secret',
  'secret',
];

describe('exchange-conformance CLI', () => {
  it('lists every requirement with its level, profile and origin', async () => {
    const { code, stdout } = await conformance('list');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(catalog.length);
    expect(lines.find((line) => line.startsWith('ORDER-CANCEL-NOT-LIVE'))).toMatch(
      /^ORDER-CANCEL-NOT-LIVE\s+MUST\s+orders\s+Order, row 4\s+\[cancelOrder, cancelOrderByClientId\]$/,
    );
    expect(lines.find((line) => line.startsWith('AUTH-ALG-NONE'))).toMatch(
      /^AUTH-ALG-NONE\s+MUST\s+auth\s+/,
    );
  });

  it('exits 2 with what to do when the server cannot be reached', async () => {
    const { code, stderr } = await conformance(...runAgainstNothing, '--profile', 'orders');
    expect(code).toBe(2);
    expect(stderr).toContain('cannot reach http://127.0.0.1:9');
    expect(stderr).toContain('start the server, or check --exchange-url');
  });

  it('exits 2 on bad arguments, naming them', async () => {
    const missing = await conformance('run', '--token-id', 'id');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('run needs --exchange-url, --token-secret');
    const profile = await conformance(...runAgainstNothing, '--profile', 'bonds');
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('--profile bonds: the profiles are orders, loan-book');
    const report = await conformance(
      ...runAgainstNothing,
      '--profile',
      'orders',
      '--report',
      'pdf=x.pdf',
    );
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('FORMAT one of junit, json, html');
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const { code, stderr } = await conformance('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('Usage: exchange-conformance');
  });
});
