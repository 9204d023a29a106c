import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeConformance } from '../cli/run-cli.test-support.js';
import { signFor } from '../signing/sign.js';
import { startSandboxTarget } from '../testing/sandbox.js';
import { CredentialsRefusedError, RunAbortedError } from './aborted.js';
import { credentialsNeeded } from './preflight.js';
import { runConformance } from './run.js';
import type { Target } from './target.js';

/** `exchange-conformance run` with these arguments: its exit status and what it printed. */
const conformanceRun = (...args: string[]) => exchangeConformance(['run', ...args]);

const credentialsOf = (target: Target) => [
  '--token-id',
  target.tokenId,
  '--token-secret',
  target.tokenSecret,
  '--public-api-key',
  target.publicApiKey,
];

describe('the credentials a run asks for', () => {
  it('are those the operations of the chosen profiles are signed with', () => {
    expect(credentialsNeeded(['loan-book'])).toEqual({ token: false, publicApiKey: false });
    expect(credentialsNeeded(['orders'])).toEqual({ token: true, publicApiKey: false });
    // Loan bids are the caller's own: their profile signs, while the loan book stays public.
    expect(credentialsNeeded(['loans'])).toEqual({ token: true, publicApiKey: false });
    expect(credentialsNeeded(['oauth', 'loan-book'])).toEqual({
      token: true,
      publicApiKey: false,
    });
    expect(credentialsNeeded(['partner-sessions'])).toEqual({ token: true, publicApiKey: true });
    expect(credentialsNeeded(['partner-transactions'])).toEqual({
      token: true,
      publicApiKey: true,
    });
  });
});

let sandbox: Awaited<ReturnType<typeof startSandboxTarget>>;
let target: Target;
beforeAll(async () => {
  sandbox = await startSandboxTarget();
  target = sandbox.target;
});
afterAll(async () => {
  await sandbox?.close();
});

describe('base URLs and credentials, checked against the sandbox before anything runs', () => {
  it('reports a partner base URL with a wrong path as the base URL, not the public API key', async () => {
    const partnerUrl = `${target.partnerUrl.replace(/\/+$/, '')}/api/v1`;
    const run = runConformance({ ...target, partnerUrl }, { profiles: ['partner-sessions'] });
    await expect(run).rejects.toThrow(RunAbortedError);
    await expect(run).rejects.not.toThrow(CredentialsRefusedError);
    await expect(run).rejects.toThrow(
      `is ${partnerUrl} the base URL? check --partner-url (the spec paths are appended to it)`,
    );

    const { code, stdout, stderr } = await conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      '--partner-url',
      partnerUrl,
      ...credentialsOf(target),
      '--profile',
      'partner-sessions',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      `exchange-conformance: GET /api/v1/api/v1/partner/${target.publicApiKey}/transactions answered 404 "No route for GET /api/v1/api/v1/partner/${target.publicApiKey}/transactions", a route every server of the interface has: is ${partnerUrl} the base URL? check --partner-url (the spec paths are appended to it)`,
    ]);
  });

  it('stops on an exchange base URL with a wrong path, whether the profiles sign or not', async () => {
    const exchangeUrl = `${target.exchangeUrl.replace(/\/+$/, '')}/nope`;
    const { code, stdout, stderr } = await conformanceRun(
      '--exchange-url',
      exchangeUrl,
      ...credentialsOf(target),
      '--profile',
      'orders',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      `exchange-conformance: GET /nope/orders answered 404 "No route for GET /nope/orders", a route every server of the interface has: is ${exchangeUrl} the base URL? check --exchange-url (the spec paths are appended to it)`,
    ]);
    // The loan book needs no credentials: a public read proves the base URL.
    await expect(
      runConformance({ ...target, exchangeUrl }, { profiles: ['loan-book'] }),
    ).rejects.toThrow(`GET /nope/products answered 404 "No route for GET /nope/products"`);
  });

  it('asks for and checks no token when the profiles call nothing signed, and checks it when one does', async () => {
    const loanBook = await conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      '--profile',
      'loan-book',
    );
    expect(loanBook.stderr).toBe('');
    expect(loanBook.code).toBe(0);
    expect(loanBook.stdout).toMatch(/requirements in [\d.]+ s \(\d+ calls\): \d+ PASS/);

    const wrongSecret = { ...target, tokenSecret: `${target.tokenSecret}-not` };
    const oauth = conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      ...credentialsOf(wrongSecret),
      '--profile',
      'loan-book',
      '--profile',
      'oauth',
    );
    expect((await oauth).code).toBe(2);
    expect((await oauth).stderr).toContain(
      `the server refused the API token ${target.tokenId} (GET /orders answered 401`,
    );
    const withoutToken = await conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      '--profile',
      'oauth',
    );
    expect(withoutToken.code).toBe(2);
    expect(withoutToken.stderr).toContain('run needs --token-id, --token-secret');
  });
});

describe('a report the run could not write', () => {
  it('is refused in one line before any requirement runs against a server that answers', async () => {
    const report = `json=${join(tmpdir(), `missing-${process.pid}`, 'x.json')}`;
    const { code, stdout, stderr } = await conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      '--profile',
      'loan-book',
      '--report',
      report,
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      `exchange-conformance: --report ${report}: the folder ${join(tmpdir(), `missing-${process.pid}`)} does not exist; create it first`,
    ]);
  });
});

describe('a token that already used a nonce ahead of the clock', () => {
  // Its own sandbox: the nonce spent here leaves the token unusable for any other test.
  let own: Awaited<ReturnType<typeof startSandboxTarget>>;
  let target: Target;
  beforeAll(async () => {
    own = await startSandboxTarget();
    target = own.target;
  });
  afterAll(async () => {
    await own?.close();
  });

  it('is reported as a nonce the server saw, not as a wrong token id or secret', async () => {
    const path = '/orders?limit=1';
    const ahead = signFor(
      { tokenId: target.tokenId, path, nonce: Date.now() * 1000 },
      target.tokenSecret,
    );
    const accepted = await fetch(`${target.exchangeUrl.replace(/\/+$/, '')}${path}`, {
      headers: { 'X-Service-Auth': ahead },
    });
    expect(accepted.status).toBe(200);

    const run = runConformance(target, { profiles: ['orders'] });
    await expect(run).rejects.toMatchObject({
      credential: 'token',
      message: expect.stringContaining(
        `the server has already seen a larger nonce for the API token ${target.tokenId} than this clock gives`,
      ),
    });
    const { code, stdout, stderr } = await conformanceRun(
      '--exchange-url',
      target.exchangeUrl,
      ...credentialsOf(target),
      '--profile',
      'orders',
    );
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /\(\d+, milliseconds since 1970; GET \/orders answered 401 "Nonce is too small"\): the token was used with a nonce ahead of time; use another token/,
    );
    expect(lines[0]).not.toContain('check --token-id');
  });
});
