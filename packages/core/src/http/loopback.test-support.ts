import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** How the server answers one request; `body` is the request's, read in full. */
export type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: the same one on two requests means the connection was kept. */
  port: number;
}

/**
 * A real HTTP server on loopback for the tests of a file: it listens before them, records
 * every request (cleared before each test), answers through `handler`, and closes after them.
 */
export function loopbackServer(handler: Handler) {
  const loopback = {
    origin: '',
    seen: [] as Seen[],
    /**
     * Resolves once `count` requests have reached the server: a test that acts on a request
     * in flight waits for it to arrive rather than guessing how long a loaded machine takes.
     */
    async arrived(count: number, withinMs = 10_000) {
      const deadline = Date.now() + withinMs;
      while (loopback.seen.length < count) {
        if (Date.now() > deadline) throw new Error(`${count} request(s) never reached the server`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const { method = '', url = '', headers, socket } = request;
    loopback.seen.push({ method, url, headers, body, port: socket.remotePort ?? 0 });
    handler(request, body, response);
  });
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    loopback.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    loopback.seen.length = 0;
  });
  return loopback;
}
