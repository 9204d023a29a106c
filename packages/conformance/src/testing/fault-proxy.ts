import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signServiceAuth } from '@exchange-kit/core/auth';
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

export interface FaultTools {
  target: Target;
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
  const tools: FaultTools = {
    target: upstream,
    async forward(request) {
      const response = await fetch(`${origin}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
        signal: AbortSignal.timeout(10_000),
      });
      return {
        status: response.status,
        headers: { 'content-type': response.headers.get('content-type') ?? 'text/plain' },
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.target = { ...upstream, exchangeUrl: url, partnerUrl: url };
  proxy.close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  return proxy;
}
