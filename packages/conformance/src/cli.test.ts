import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requirements } from './requirements.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

async function conformance(...args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, [cli, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('exchange-conformance CLI', () => {
  it('lists every requirement with its level and origin', async () => {
    const { code, stdout } = await conformance('list');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(requirements.length);
    expect(lines.find((line) => line.startsWith('ORDER-CANCEL-NOT-LIVE'))).toMatch(
      /^ORDER-CANCEL-NOT-LIVE\s+MUST\s+Order, row 4\s+\[cancelOrder, cancelOrderByClientId\]$/,
    );
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const { code, stderr } = await conformance('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('Usage: exchange-conformance');
  });
});
