/**
 * Every runnable sample of the site, run as a reader runs it (`tsx file.ts`) against the real
 * sandbox in its own process; each must exit 0 and print what the guide says it prints.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { catalog, parseExpectedFailures } from '@exchange-kit/conformance';
import type { SandboxProcess } from '@exchange-kit/sandbox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxForTests } from './sandbox.js';

const docsDir = fileURLToPath(new URL('../', import.meta.url));
let sandbox: SandboxProcess;
const cli = fileURLToPath(new URL('../../../packages/conformance/src/cli.ts', import.meta.url));

const outputDir = fileURLToPath(new URL('../test-output/examples/', import.meta.url));

beforeAll(async () => {
  await mkdir(outputDir, { recursive: true });
  sandbox = await sandboxForTests();
});
afterAll(() => sandbox?.stop());

async function run(example: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    `${docsDir}node_modules/.bin/tsx`,
    ['--conditions=@exchange-kit/source', `${docsDir}examples/${example}`],
    {
      cwd: outputDir,
      env: {
        ...process.env,
        EXCHANGE_URL: sandbox.exchangeUrl,
        PARTNERS_URL: sandbox.partnerUrl,
        TOKEN_ID: sandbox.tokenId,
        TOKEN_SECRET: sandbox.tokenSecret,
        PUBLIC_API_KEY: sandbox.publicApiKey,
      },
      timeout: 45_000,
    },
  );
  return stdout;
}

describe('runnable samples against the sandbox', () => {
  it('backend/orders.ts: first call, edit and cancel by either id, cancel_all, stops, decimals, errors', async () => {
    const out = await run('backend/orders.ts');
    expect(out).toMatch(/^order \d+ is live$/m);
    expect(out).toMatch(/^order \d+ is cancelled$/m);
    expect(out).toContain('already cancelled');
    expect(out).toMatch(/^cancel_all cancelled docs-\w+-buy$/m);
    expect(out).toContain('price kept to the digit: 1000.000000000000000001');
    const stops = /^bought at (\S+), trailing stop triggers at (\S+)$/m.exec(out);
    expect(Number(stops?.[2])).toBeCloseTo(Number(stops?.[1]) * 0.95, 6);
    expect(out).toContain('cancelled 2 stops: true');
    expect(out).toMatch(/^rejected with 4\d\d: /m);
  });

  it('backend/retries.ts: a client with retries, rate limit and logging hooks', async () => {
    expect(await run('backend/retries.ts')).toMatch(/GET \S+\/ir_ladders\/BTC 200/);
  });

  it('backend/oauth.ts: acts for a user through an approved OAuth request', async () => {
    expect(await run('backend/oauth.ts')).toMatch(/^user \d+ \(\w+\) holds \d+ crypto accounts$/m);
  });

  it('backend/partner-server.ts: creates an intent and lists transactions', async () => {
    const out = await run('backend/partner-server.ts');
    expect(out).toMatch(/^intent [0-9a-f-]{36}, strategy ONE_TO_ONE_ATTEMPTED$/m);
    expect(out).toMatch(/^\d+ transactions since yesterday$/m);
  });

  it('server/run-conformance.ts: the suite passes against the sandbox and writes its reports', async () => {
    const out = await run('server/run-conformance.ts');
    expect(out).toMatch(/^PASS {2}ORDER-CANCEL-LIVE$/m);
    expect(out).toMatch(/"FAIL":0/);
  });

  it('server/expected-failures.json is a valid expected-failures file naming a real requirement', async () => {
    const text = await readFile(`${docsDir}examples/server/expected-failures.json`, 'utf8');
    const entries = parseExpectedFailures(text);
    for (const entry of entries) expect(catalog.map((r) => r.id)).toContain(entry.id);
  });

  it('server/run.sh: the commands of the server guide, run with the CLI from source', async () => {
    const script = await readFile(`${docsDir}examples/server/run.sh`, 'utf8');
    const env: Record<string, string> = {};
    for (const [, name, value] of script.matchAll(/^export (\w+)=(\S+)$/gm)) {
      env[name as string] = value as string;
    }
    await copyFile(
      `${docsDir}examples/server/expected-failures.json`,
      `${outputDir}expected-failures.json`,
    );
    const commands = script
      .split('\n')
      .filter((line) => line.startsWith('npx exchange-conformance '));
    expect(commands).toHaveLength(2);
    const outputs: string[] = [];
    for (const command of commands) {
      const args = command
        .replace('npx exchange-conformance ', '')
        .replaceAll('http://127.0.0.1:4000', sandbox.exchangeUrl)
        .split(/\s+/);
      const { stdout } = await promisify(execFile)(
        `${docsDir}node_modules/.bin/tsx`,
        ['--conditions=@exchange-kit/source', cli, ...args],
        { cwd: outputDir, env: { ...process.env, ...env }, timeout: 45_000 },
      );
      outputs.push(stdout);
    }
    expect(outputs[0]).toContain('ORDER-CANCEL-LIVE');
    expect(outputs[1]).toContain('ORDER-CANCEL-LIVE');
    await expect(readFile(`${outputDir}conformance.xml`, 'utf8')).resolves.toContain('<testsuite');
  });
});
