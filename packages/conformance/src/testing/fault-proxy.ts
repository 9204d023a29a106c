import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signServiceAuth } from '@exchange-kit/core/auth';
import WebSocket, { WebSocketServer } from 'ws';
import type { Target } from '../engine/target.js';

/** A request on its way to the server, as a fault may rewrite it. */
export interface ProxiedRequest {
  method: string;
  /** Path with its query string. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A websocket the proxy relays to the server, as a fault sees it. */
export interface ProxiedSocket {
  /** What a fault keeps about this connection. */
  readonly state: Record<string, unknown>;
  /** Sends a frame to the client as if the server had. */
  toClient(frame: string): void;
}

export interface FaultTools {
  target: Target;
  /** The websockets open through the proxy. */
  sockets: ReadonlySet<ProxiedSocket>;
  /** Sends a request to the real server. */
  forward(request: ProxiedRequest): Promise<ProxiedResponse>;
  /** A valid X-Service-Auth JWT for `path`, as the server's own token would sign it. */
  sign(path: string, options?: { delegate?: boolean }): Promise<string>;
}

/** A server fault: a request or response transform that makes the server break the spec. */
export interface Fault {
  name: string;
  /** The requirement that must FAIL when the fault is in place. */
  covers: string;
  /** Requirements checked alongside it that the fault rightly breaks too. */
  alsoFails?: string[];
  /**
   * Its requirement needs a step the interfaces lack (denying an OAuth request): the run goes
   * through the sandbox's test control.
   */
  testControl?: boolean;
  /** Rewrites the request, or answers in the server's place by returning a response. */
  request?(
    request: ProxiedRequest,
    tools: FaultTools,
  ): Promise<ProxiedRequest | ProxiedResponse> | ProxiedRequest | ProxiedResponse;
  response?(
    request: ProxiedRequest,
    response: ProxiedResponse,
    tools: FaultTools,
  ): Promise<ProxiedResponse> | ProxiedResponse;
  /** Rewrites a websocket frame the server sends: the frames the client gets in its place. */
  serverFrame?(frame: string, socket: ProxiedSocket): string[];
  /** Rewrites a websocket frame the client sends: the frames the server gets in its place. */
  clientFrame?(frame: string, socket: ProxiedSocket): string[];
}

export interface FaultProxy {
  /** The target as the suite sees it: the proxy's URLs with the real credentials. */
  target: Target;
  /** The fault in place; none forwards everything unchanged. */
  fault: Fault | undefined;
  close(): Promise<void>;
}

const isResponse = (value: ProxiedRequest | ProxiedResponse): value is ProxiedResponse =>
  'status' in value;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A fault-injecting HTTP proxy on 127.0.0.1 between the suite and a real server, so the
 * suite can be run against broken variants of the server without touching it.
 */
export async function startFaultProxy(upstream: Target): Promise<FaultProxy> {
  const origin = new URL(upstream.exchangeUrl).origin;
  const sockets = new Set<ProxiedSocket>();
  const ends = new Set<() => void>();
  const tools: FaultTools = {
    target: upstream,
    sockets,
    async forward(request) {
      const response = await fetch(`${origin}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
        signal: AbortSignal.timeout(10_000),
      });
      // The server's Date goes on: what the suite judges by the server's clock (a quote's
      // expiry once test control moved it) must not read the proxy's.
      const date = response.headers.get('date');
      return {
        status: response.status,
        headers: {
          'content-type': response.headers.get('content-type') ?? 'text/plain',
          ...(date ? { date } : {}),
        },
        body: await response.text(),
      };
    },
    sign: (path, options) =>
      signServiceAuth(upstream, options?.delegate ? { path, delegate: true } : { path }),
  };
  const proxy: FaultProxy = { target: upstream, fault: undefined, close: async () => {} };
  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (
          typeof value === 'string' &&
          !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)
        )
          headers[name] = value;
      }
      let request: ProxiedRequest = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers,
        body: await readBody(incoming),
      };
      const fault = proxy.fault;
      let response: ProxiedResponse;
      const rewritten = fault?.request ? await fault.request(request, tools) : request;
      if (isResponse(rewritten)) {
        response = rewritten;
      } else {
        request = rewritten;
        response = await tools.forward(request);
        if (fault?.response) response = await fault.response(request, response, tools);
      }
      outgoing.writeHead(response.status, response.headers);
      outgoing.end(response.body);
    })().catch((error: unknown) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`fault proxy: ${String(error)}`);
    });
  });
  const upgrades = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    upgrades.handleUpgrade(request, socket, head, (client) =>
      relay(client, new WebSocket(`${origin.replace(/^http/, 'ws')}${request.url ?? '/'}`)),
    );
  });
  // Frames pass through the fault in place when each arrives; the client's wait for the
  // server's socket to open.
  const relay = (client: WebSocket, server: WebSocket) => {
    const waiting: string[] = [];
    const proxied: ProxiedSocket = {
      state: {},
      toClient: (frame) => {
        if (client.readyState === WebSocket.OPEN) client.send(frame);
      },
    };
    const end = () => {
      sockets.delete(proxied);
      ends.delete(end);
      client.terminate();
      server.terminate();
    };
    sockets.add(proxied);
    ends.add(end);
    server.on('open', () => {
      for (const frame of waiting.splice(0)) server.send(frame);
    });
    server.on('message', (raw) => {
      const fault = proxy.fault;
      const frame = String(raw);
      for (const out of fault?.serverFrame ? fault.serverFrame(frame, proxied) : [frame])
        proxied.toClient(out);
    });
    client.on('message', (raw) => {
      const fault = proxy.fault;
      const frame = String(raw);
      for (const out of fault?.clientFrame ? fault.clientFrame(frame, proxied) : [frame]) {
        if (server.readyState === WebSocket.OPEN) server.send(out);
        else waiting.push(out);
      }
    });
    for (const socket of [client, server]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.target = { ...upstream, exchangeUrl: url, partnerUrl: url };
  proxy.close = () =>
    new Promise<void>((resolve, reject) => {
      for (const end of [...ends]) end();
      upgrades.close();
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  return proxy;
}
