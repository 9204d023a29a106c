/**
 * A server that keeps no state: every call answers its operation's documented success with the
 * spec's own example, so every transaction, session and order has the same id on every call.
 * A foreign server, not ours: it stands for an implementer's first stub.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findOperation, type MediaType } from '../engine/spec.js';

function exampleOf(media: MediaType | undefined): unknown {
  if (media?.example !== undefined) return media.example;
  return Object.values(media?.examples ?? {})[0]?.value;
}

export async function startStatelessServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const op = findOperation(request.method ?? 'GET', url.pathname);
      const success = Object.entries(op?.responses ?? {}).find(([status]) => /^2/.test(status));
      if (!success) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"message":"not found"}');
        return;
      }
      const [status, documented] = success;
      const body = exampleOf(documented.content?.['application/json']);
      response.writeHead(Number(status), { 'content-type': 'application/json' });
      response.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
