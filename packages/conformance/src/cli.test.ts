import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { catalog } from './catalog.js';
import { jwtHeader, jwtPayload } from './forge.js';
import { signFor } from './sign.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

async function conformance(...args: string[]) {
  return conformanceWith({}, ...args);
}

async function conformanceWith(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(tsx, ['--conditions=@exchange-kit/source', cli, ...args], {
      env: { ...process.env, ...env },
    });
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

  it('exits 2 on a --concurrency that is not a whole number, and on an unknown tag or operation', async () => {
    const concurrency = await conformance(
      ...runAgainstNothing,
      '--profile',
      'orders',
      '--concurrency',
      '0',
    );
    expect(concurrency.code).toBe(2);
    expect(concurrency.stderr).toContain('--concurrency 0: give a whole number, 1 or more');
    const tag = await conformance(...runAgainstNothing, '--profile', 'orders', '--tag', 'bonds');
    expect(tag.code).toBe(2);
    expect(tag.stderr).toContain('unknown tag "bonds"; the spec tags are');
    const operation = await conformance(
      ...runAgainstNothing,
      '--profile',
      'orders',
      '--operation',
      'buyBonds',
    );
    expect(operation.code).toBe(2);
    expect(operation.stderr).toContain('unknown operation "buyBonds"');
    const examples = await conformance(
      ...runAgainstNothing,
      '--profile',
      'input',
      '--max-examples',
      'many',
    );
    expect(examples.code).toBe(2);
    expect(examples.stderr).toContain('--max-examples many: give a whole number, 1 or more');
    const docs = await conformance(...runAgainstNothing, '--docs-url', 'docs');
    expect(docs.code).toBe(2);
    expect(docs.stderr).toContain('--docs-url docs: give an absolute URL');
  });

  it('signs a JWT with the secret from the environment, the payload the spec names', async () => {
    const secret = 'from-the-environment';
    const env = { EXCHANGE_CONFORMANCE_TOKEN_SECRET: secret };
    const plain = await conformanceWith(
      env,
      'sign',
      '--token-id',
      '7',
      '--path',
      '/orders?limit=1',
    );
    expect(plain.code).toBe(0);
    const jwt = plain.stdout.trim();
    expect(jwtHeader(jwt)).toMatchObject({ alg: 'HS256' });
    const payload = jwtPayload(jwt) as Record<string, unknown>;
    expect(payload).toMatchObject({ token_id: '7', path: '/orders?limit=1' });
    expect(payload.nonce).toBeGreaterThan(Date.now() - 60_000);
    // Signed with that very secret: the same payload signed here gives the same JWT.
    expect(
      signFor({ tokenId: '7', path: '/orders?limit=1', nonce: payload.nonce as number }, secret),
    ).toBe(jwt);

    const partner = await conformanceWith(
      env,
      'sign',
      '--token-id',
      '7',
      '--method',
      'POST',
      '--path',
      '/api/v1/partner/pk/intent',
    );
    expect(jwtPayload(partner.stdout.trim())).toMatchObject({
      path: '/realtime',
      delegate_path: '/api/v1/partner/pk/intent',
    });

    const stale = await conformanceWith(
      env,
      'sign',
      '--token-id',
      '7',
      '--path',
      '/x',
      '--nonce',
      '5',
      '--alg',
      'HS512',
    );
    expect(jwtHeader(stale.stdout.trim())).toMatchObject({ alg: 'HS512' });
    expect(jwtPayload(stale.stdout.trim())).toMatchObject({ nonce: 5 });

    const noSecret = await conformanceWith(
      { EXCHANGE_CONFORMANCE_TOKEN_SECRET: '' },
      'sign',
      '--path',
      '/x',
    );
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain(
      'sign needs --token-id, the environment variable EXCHANGE_CONFORMANCE_TOKEN_SECRET',
    );
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const { code, stderr } = await conformance('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('Usage: exchange-conformance');
  });
});
