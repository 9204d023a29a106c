/**
 * One sandbox and one example backend for the whole run, in Node: the hook tests run under
 * jsdom, where the sandbox's store cannot start, and reach both over HTTP like a browser would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandboxProcess } from '@exchange-kit/sandbox/testing';
import type { TestProject } from 'vitest/node';
import { intentBackend } from '../example/backend.js';

declare module 'vitest' {
  export interface ProvidedContext {
    partnersUrl: string;
    publicApiKey: string;
    backendUrl: string;
    /** Server side only: the e2e test hands it to the example's backend. */
    backendCredentials: { tokenId: string; tokenSecret: string };
    /**
     * A sandbox of its own for the hook test that moves its clock (quote expiry), so that no
     * other test's instructions expire under it. The end-to-end test starts its own.
     */
    clockSandbox: { partnersUrl: string; publicApiKey: string; exchangeUrl: string };
    /** The exchange interface of the first sandbox, for the trading hooks. */
    exchangeUrl: string;
  }
}

/**
 * These sandboxes require the session Bearer JWT on every session call
 * (`--require-session-auth`), as a service may: every hook test proves the hooks sign. They are
 * started with `--settle-after never`, so no transaction moves past PENDING on its own: the tests end one when they choose, through the example backend, which hands
 * POST /test/transactions/{id}/status on to the sandbox's test control.
 */
async function finishTransaction(
  exchangeUrl: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const id = /^\/test\/transactions\/([0-9a-f-]{36})\/status$/.exec(request.url ?? '')?.[1];
  if (request.method !== 'POST' || !id) {
    response.writeHead(404).end();
    return;
  }
  let text = '';
  for await (const chunk of request) text += chunk;
  const answer = await fetch(`${exchangeUrl}/test/transactions/${id}/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  response.writeHead(answer.ok ? 204 : answer.status).end();
}

export default async function setup(project: TestProject) {
  const args = ['--settle-after', 'never', '--require-session-auth'];
  const [sandbox, clockSandbox] = await Promise.all([
    startSandboxProcess(60_000, args),
    startSandboxProcess(60_000, args),
  ]);
  const { publicApiKey, tokenId, tokenSecret } = sandbox;
  const handle = intentBackend({
    partnersUrl: sandbox.partnerUrl,
    publicApiKey,
    tokenId,
    tokenSecret,
  });
  const backend = createServer((request, response) => {
    void handle(request, response, () => {
      void finishTransaction(sandbox.exchangeUrl, request, response);
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const { port } = backend.address() as AddressInfo;

  project.provide('partnersUrl', sandbox.partnerUrl);
  project.provide('publicApiKey', publicApiKey);
  project.provide('backendUrl', `http://127.0.0.1:${port}`);
  project.provide('backendCredentials', { tokenId, tokenSecret });
  project.provide('exchangeUrl', sandbox.exchangeUrl);
  project.provide('clockSandbox', {
    partnersUrl: clockSandbox.partnerUrl,
    publicApiKey: clockSandbox.publicApiKey,
    exchangeUrl: clockSandbox.exchangeUrl,
  });

  return async () => {
    backend.closeAllConnections();
    await new Promise<void>((resolve) => backend.close(() => resolve()));
    await Promise.all([sandbox.stop(), clockSandbox.stop()]);
  };
}
