/**
 * Test support: a sandbox on an ephemeral port, and a small signing HTTP client that speaks to
 * it the way real clients do.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApiToken, signServiceAuth } from '@exchange-kit/core/auth';
import { expect, onTestFinished } from 'vitest';
import * as z from 'zod/mini';
import { freshDatabase } from './postgres.test-support.js';
import { addUser, type NewUser } from './seeding.js';
import { type RunningSandbox, type SandboxOptions, startSandbox } from './server.js';
import type { StoreOptions } from './store/database.js';

/**
 * A sandbox on an ephemeral port: in-memory PGlite, or a database of its own on the
 * PostgreSQL named by SANDBOX_TEST_DATABASE_URL to run the same tests against a real server.
 */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  return startSandbox({
    port: 0,
    ...(serverUrl ? { databaseUrl: await freshDatabase(serverUrl) } : { memory: true }),
    ...options,
  });
}

/**
 * A store that outlives one sandbox, for a test that starts another on it: a data folder,
 * removed when the test ends, or a database of its own on the PostgreSQL of the second pass.
 */
export async function lastingStore(): Promise<Exclude<StoreOptions, { memory: true }>> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  if (serverUrl) return { databaseUrl: await freshDatabase(serverUrl) };
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-store-'));
  onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
  return { dataDir };
}

/** What a test call got back: its status, content type and body, parsed when it is JSON. */
export interface ParsedResponse {
  status: number;
  contentType: string;
  /** Parsed JSON, or the text of a non-JSON body. */
  body: unknown;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, instead of `body` as JSON: text, or bytes that may be no UTF-8 at all. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Sign this path instead of the request's own. */
  signPath?: string;
  /** Send no X-Service-Auth header. */
  anonymous?: boolean;
  /** Sign for a user through an approved OAuth request. */
  oauth?: { publicId: string; privateId: string };
}

export async function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Promise<ParsedResponse> {
  const response = await fetch(baseUrl + path, {
    method,
    headers,
    body: typeof body === 'string' || body === undefined ? body : Buffer.from(body),
  });
  const contentType = response.headers.get('content-type') ?? '';
  const text = await response.text();
  return {
    status: response.status,
    contentType,
    body: contentType.startsWith('application/json') ? JSON.parse(text) : text,
  };
}

/** A client of the sandbox signing every call with `token`. */
export function clientFor(sandbox: Pick<RunningSandbox, 'exchangeUrl'>, token: ApiToken) {
  return async (
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ParsedResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.anonymous) {
      const signPath = options.signPath ?? path;
      headers['X-Service-Auth'] = options.oauth
        ? await signServiceAuth(token, { path: signPath, oauth: options.oauth })
        : await signServiceAuth(token, { path: signPath });
    }
    let body: string | Uint8Array | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    return send(sandbox.exchangeUrl, method, path, headers, body);
  };
}

export type Client = ReturnType<typeof clientFor>;

export function demoClient(sandbox: RunningSandbox): Client {
  return clientFor(sandbox, {
    tokenId: sandbox.credentials.tokenId,
    tokenSecret: sandbox.credentials.tokenSecret,
  });
}

/** A new funded user of the sandbox with a client signing as that user. */
export async function newUser(sandbox: RunningSandbox): Promise<NewUser & { call: Client }> {
  const user = await sandbox.sequencer.run((journal) => addUser(journal, { now: Date.now() }));
  return { ...user, call: clientFor(sandbox, user) };
}

/** Asserts a success response and that its body validates against the operation's schema. */
export function valid<S extends z.core.$ZodType>(
  schema: S,
  answer: ParsedResponse,
  status = 200,
): z.output<S> {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const result = z.safeParse(schema, answer.body);
  expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  return result.data as z.output<S>;
}

/** Runs the sandbox's command line from the sources with `args`, in memory, to its exit. */
export function runCommandLine(args: string[]): { status: number | null; stderr: string } {
  const sandboxDir = fileURLToPath(new URL('..', import.meta.url));
  return spawnSync(
    `${sandboxDir}node_modules/.bin/tsx`,
    ['--conditions=@exchange-kit/source', 'src/main.ts', '--memory', ...args],
    { cwd: sandboxDir, encoding: 'utf8', timeout: 30_000 },
  );
}
