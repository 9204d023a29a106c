/**
 * A loopback server in front of the sandbox's exchange interface: it forwards every request and
 * websocket to the sandbox, serves the test's own pages, and can cut the websockets and refuse
 * new ones for a while, as a lost network does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';

export interface MarketProxy {
  url: string;
  /** Ends every websocket in flight and refuses new ones, as a lost network does, until `up`. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startMarketProxy(
  exchangeUrl: string,
  pages: Record<string, { type: string; body: string | Buffer }> = {},
): Promise<MarketProxy> {
  const target = new URL(exchangeUrl);
  const sockets = new Set<Socket>();
  let refusing = false;
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
      ),
    );
    const answer = await fetch(new URL(request.url ?? '/', target), {
      method: request.method,
      headers,
      ...(body ? { body } : {}),
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  };
  const server = createServer((request, response) => {
    const page = pages[new URL(request.url ?? '/', 'http://page').pathname];
    if (page) response.writeHead(200, { 'content-type': page.type }).end(page.body);
    else void forward(request, response).catch(() => response.destroy());
  });
  // The websocket handshake and its frames, byte for byte.
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    if (refusing) {
      socket.destroy();
      return;
    }
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let at = 0; at < request.rawHeaders.length; at += 2) {
        lines.push(`${request.rawHeaders[at]}: ${request.rawHeaders[at + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    for (const each of [socket, upstream]) {
      sockets.add(each);
      each.on('close', () => sockets.delete(each));
      each.on('error', () => {
        socket.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    down() {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      refusing = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
