import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import exchangeSpec from '@exchange-kit/spec/exchange.openapi.json' with { type: 'json' };
import partnerSpec from '@exchange-kit/spec/partner.openapi.json' with { type: 'json' };

export interface SandboxOptions {
  port?: number;
  host?: string;
}

export interface RunningSandbox {
  server: Server;
  /** Base URL of the exchange interface (paths at the root). */
  exchangeUrl: string;
  /** Base URL of the partner interface; partner paths add /api/v1 to it. */
  partnerUrl: string;
  close(): Promise<void>;
}

const specs: Record<string, unknown> = {
  '/openapi/exchange.json': exchangeSpec,
  '/openapi/partner.json': partnerSpec,
};

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
  const spec = specs[path];
  if (request.method === 'GET' && spec) {
    sendJson(response, 200, spec);
  } else {
    sendJson(response, 404, { message: `No route for ${request.method} ${path}` });
  }
}

/** Starts the sandbox and resolves once it accepts connections. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const server = createServer(handle);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4000, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    server,
    exchangeUrl: origin,
    partnerUrl: origin,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
