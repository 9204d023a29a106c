import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { catalog } from '../engine/catalog.js';
import { forgeJwt, jwtHeader, jwtPayload } from '../signing/forge.js';
import { signFor } from '../signing/sign.js';
import { exchangeConformance } from './run-cli.test-support.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

const conformance = (...args: string[]) => exchangeConformance(args);
const conformanceWith = (env: Record<string, string>, ...args: string[]) =>
  exchangeConformance(args, env);

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
    expect(lines.find((line) => line.startsWith('EVENTS-PING'))).toMatch(
      /^EVENTS-PING\s+MUST\s+events\s+exchange\.asyncapi\.yaml operation ping\s+\[\]$/,
    );
  });

  it('refuses an --events-url that is no websocket URL, naming it', async () => {
    const { code, stderr } = await conformance(
      ...runAgainstNothing,
      '--events-url',
      'http://127.0.0.1:9/app/LiquidTapClient',
    );
    expect(code).toBe(2);
    expect(stderr).toContain('--events-url http://127.0.0.1:9/app/LiquidTapClient: give a ws://');
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

    // Without a nonce: the fresh iat and jti a server needs to take it for one order.
    const order = await conformanceWith(
      env,
      'sign',
      '--token-id',
      '7',
      '--method',
      'POST',
      '--path',
      '/orders',
      '--no-nonce',
    );
    expect(jwtPayload(order.stdout.trim())).toEqual({
      token_id: '7',
      path: '/orders',
      iat: expect.any(Number),
      jti: expect.any(String),
    });
    expect(jwtPayload(order.stdout.trim())?.iat).toBeGreaterThan(Date.now() / 1000 - 60);

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

  it('ends as it would when the reader of its output leaves first (`| head`)', async () => {
    const child = spawn(tsx, ['--conditions=@exchange-kit/source', cli, 'list'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the command writes a line: every write it makes meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it("runs as a command: its exit status and its streams are the process's", async () => {
    const spawned = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run(tsx, [
          '--conditions=@exchange-kit/source',
          cli,
          ...args,
        ]);
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const help = await spawned('--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout.split('\n')[0]).toBe('Usage: exchange-conformance <command> [options]');
    const refused = await spawned('sign');
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('exchange-conformance: sign needs --token-id');
  });

  it('prints the usage of the command asked about on --help or -h, and exits 0', async () => {
    for (const [command, first] of [
      ['run', 'Usage: exchange-conformance run --exchange-url URL [options]'],
      ['sign', 'Usage: exchange-conformance sign --token-id ID --path PATH [options]'],
      ['list', 'Usage: exchange-conformance list'],
    ] as const) {
      for (const flag of ['--help', '-h']) {
        const { code, stdout, stderr } = await conformance(command, flag);
        expect(code).toBe(0);
        expect(stderr).toBe('');
        expect(stdout.split('\n')[0]).toBe(first);
      }
    }
    const run = await conformance('run', '--profile', 'orders', '--help');
    expect(run.stdout).toContain('--report FORMAT=FILE');
    expect(run.stdout).not.toContain('--oauth-public-id');
  });

  it('signs a session JWT with the session secret from the environment', async () => {
    const env = { EXCHANGE_CONFORMANCE_SESSION_SECRET: 'session-secret' };
    const path = '/api/v1/transaction/status/t1';
    const signed = await conformanceWith(env, 'sign', '--session-id', 's1', '--path', path);
    expect(signed.code).toBe(0);
    const jwt = signed.stdout.trim();
    const payload = jwtPayload(jwt) as Record<string, unknown>;
    expect(payload).toMatchObject({ session_id: 's1', path });
    expect(payload.nonce).toBeGreaterThan(Date.now() - 60_000);
    expect(forgeJwt(payload, { secret: 'session-secret' })).toBe(jwt);
    const mixed = await conformanceWith(
      env,
      'sign',
      '--session-id',
      's1',
      '--token-id',
      '7',
      '--path',
      path,
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--session-id signs a session JWT: leave out --token-id');
    const secretless = await conformance('sign', '--session-id', 's1', '--path', path);
    expect(secretless.code).toBe(2);
    expect(secretless.stderr).toContain('EXCHANGE_CONFORMANCE_SESSION_SECRET');
  });

  it('refuses sign arguments that cannot mean anything, each with its reason', async () => {
    const env = { EXCHANGE_CONFORMANCE_TOKEN_SECRET: 'secret' };
    const sign = (...args: string[]) => conformanceWith(env, 'sign', '--token-id', '7', ...args);
    const refusals: [string[], string][] = [
      [['--path', '/x', '--nonce', '5', '--no-nonce'], 'give --nonce N or --no-nonce, not both'],
      [
        ['--path', '/orders', '--method', 'FETCH'],
        '--method FETCH: the operations of the specs use GET, POST, PUT',
      ],
      [
        ['--path', 'orders'],
        '--path orders: give the request path from its /, for example /orders?limit=1',
      ],
    ];
    for (const [args, reason] of refusals) {
      const { code, stdout, stderr } = await sign(...args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.split('\n')[0]).toBe(`exchange-conformance: ${reason}`);
      expect(stderr).toContain('Usage: exchange-conformance sign');
    }
    const lowerCase = await sign('--path', '/orders/7/cancel', '--method', 'put');
    expect(lowerCase.code).toBe(0);
  });

  it('refuses an empty --seed, and an expected-failures file naming an unknown id or no real day', async () => {
    const seed = await conformance(...runAgainstNothing, '--profile', 'orders', '--seed', '');
    expect(seed.code).toBe(2);
    expect(seed.stderr.split('\n')[0]).toBe(
      'exchange-conformance: --seed is empty: give a seed to replay, or leave it out for a fresh one',
    );
    const folder = await mkdtemp(join(tmpdir(), 'expected-failures-'));
    try {
      const file = join(folder, 'xf.json');
      const entry = { id: 'AUTH-ALG-NONE', reason: 'fix under way', expires: '2030-02-28' };
      for (const [entries, reason] of [
        [[entry, { ...entry, id: 'AUTH-ALG-NUN' }], `${file}[1] (AUTH-ALG-NUN): no requirement`],
        [
          [{ ...entry, expires: '2030-02-31' }],
          `${file}[0] (AUTH-ALG-NONE) needs expires as a date`,
        ],
      ] as const) {
        await writeFile(file, JSON.stringify(entries));
        const refused = await conformance(
          ...runAgainstNothing,
          '--profile',
          'orders',
          '--expected-failures',
          file,
        );
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`exchange-conformance: --expected-failures: ${reason}`);
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses a report path it could not write in one line, before reaching the server', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'reports-'));
    try {
      const missing = join(folder, 'no', 'such', 'dir');
      const nowhere = await conformance(
        ...runAgainstNothing,
        '--profile',
        'orders',
        '--report',
        `json=${join(missing, 'x.json')}`,
      );
      expect(nowhere.code).toBe(2);
      expect(nowhere.stdout).toBe('');
      expect(nowhere.stderr.trim().split('\n')).toEqual([
        `exchange-conformance: --report json=${join(missing, 'x.json')}: the folder ${missing} does not exist; create it first`,
      ]);
      const aFolder = await conformance(
        ...runAgainstNothing,
        '--profile',
        'orders',
        '--report',
        `junit=${folder}`,
      );
      expect(aFolder.code).toBe(2);
      expect(aFolder.stderr.trim()).toBe(
        `exchange-conformance: --report junit=${folder}: ${folder} is a folder; name a file in it`,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const { code, stderr } = await conformance('frobnicate');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
    expect(stderr).toContain('Usage: exchange-conformance');
  });
});
