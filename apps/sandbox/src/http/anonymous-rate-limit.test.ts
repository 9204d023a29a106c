/**
 * Anonymous partner calls write to the store with no token to answer for them: they are
 * limited per public key and per client address, by the same sliding window as tokens.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signServiceAuth } from '@exchange-kit/core/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../server.js';
import { type ParsedResponse, runCommandLine, send, startTestSandbox } from '../test-support.js';
import { defaultAnonymousRateLimits, RateLimiter } from './rate-limit.js';

let sandbox: RunningSandbox;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  sandbox = await startTestSandbox({
    now: () => clock,
    anonymousRateLimits: {
      perKey: { calls: 3, windowMs: 60_000 },
      perAddress: { calls: 5, windowMs: 60_000 },
    },
  });
});
afterAll(() => sandbox.close());

function createSession(publicKey: string): Promise<ParsedResponse> {
  return send(
    sandbox.partnerUrl,
    'POST',
    '/api/v1/session',
    { 'content-type': 'application/json' },
    JSON.stringify({ public_api_key: publicKey }),
  );
}

async function sessions(): Promise<number> {
  const { rows } = await sandbox.database.transaction((tx) =>
    tx.query<{ n: number }>('SELECT count(*)::int AS n FROM qe_sessions'),
  );
  return rows[0]?.n ?? -1;
}

describe('anonymous partner calls', () => {
  it('are limited per public key, then per address, and stored nothing when refused', async () => {
    const key = sandbox.credentials.publicApiKey;
    for (let n = 0; n < 3; n++) expect((await createSession(key)).status).toBe(200);
    const before = await sessions();
    const overKey = await createSession(key);
    expect(overKey.status).toBe(429);
    expect(overKey.body).toEqual({
      success: false,
      message: 'API rate limit exceeded. Please retry after 60s',
    });
    expect(await sessions()).toBe(before);

    // Other keys from the same address: two more are let in (5 in all), then the address is full.
    clock += 10_000;
    for (const other of ['pk_other_1', 'pk_other_2']) {
      expect((await createSession(other)).status).not.toBe(429);
    }
    const overAddress = await createSession('pk_other_3');
    expect(overAddress.status).toBe(429);
    expect(overAddress.body).toMatchObject({ success: false });

    // Signed partner calls answer for themselves: not limited as anonymous ones.
    const path = `/api/v1/partner/${key}/transactions`;
    const signed = await send(sandbox.partnerUrl, 'GET', path, {
      'X-Service-Auth': await signServiceAuth(sandbox.credentials, { path, delegate: true }),
    });
    expect(signed.status).toBe(200);

    // Once the window has passed, the same call goes through.
    clock += 60_000;
    expect((await createSession(key)).status).toBe(200);
    expect(await sessions()).toBe(before + 1);
  });
});

describe('RateLimiter', () => {
  it('tells a refusal without counting, and counts only what it is told to', () => {
    const limiter = new RateLimiter({ calls: 1, windowMs: 1_000 });
    expect(limiter.refusal('k', 0)).toBeUndefined();
    expect(limiter.refusal('k', 0)).toBeUndefined();
    limiter.count('k', 0);
    expect(limiter.refusal('k', 500)).toEqual({ retryAfterSeconds: 1 });
    expect(limiter.refusal('k', 1_000)).toBeUndefined();
  });
});

describe('--key-rate-limit and --address-rate-limit', () => {
  it('refuse a value that is neither off nor CALLS/SECONDS, naming the option', () => {
    const result = runCommandLine(['--address-rate-limit', '10']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--address-rate-limit: "10" is neither off nor CALLS\/SECONDS/);
  });

  it('print the limits at start, the defaults and a chosen one', async () => {
    const sandboxDir = fileURLToPath(new URL('../../', import.meta.url));
    const child = spawn(
      `${sandboxDir}node_modules/.bin/tsx`,
      [
        '--conditions=@exchange-kit/source',
        'src/main.ts',
        '--memory',
        '--port',
        '0',
        '--key-rate-limit',
        '7/30',
      ],
      { cwd: sandboxDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const printed = await new Promise<string[]>((resolve, reject) => {
        const lines: string[] = [];
        const timer = setTimeout(() => reject(new Error('not ready in 30 s')), 30_000);
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (line === 'ready') {
            clearTimeout(timer);
            resolve(lines);
          }
        });
      });
      const { perAddress } = defaultAnonymousRateLimits;
      expect(printed).toContain(
        `anonymous:     partner calls without a token, 7/30 calls/seconds per public key (--key-rate-limit), ${perAddress.calls}/${perAddress.windowMs / 1000} calls/seconds per client address (--address-rate-limit)`,
      );
    } finally {
      child.kill();
    }
  }, 40_000);
});
