import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type Answer, fetchSend, type Outgoing, type Send, timeoutError } from './send.js';

// Idle sockets close after 4 s, as undici's do: before the keep-alive timeout of most servers
// (Node's is 5 s), so a reused socket is seldom one the server is closing at that moment.
const agentOptions = { keepAlive: true, timeout: 4_000 };
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/**
 * Node's global fetch spends more per call than the whole rest of a call (a Request, a second
 * URL parse, web streams); node:http with a keep-alive agent does not.
 */
function sendHttp(request: Outgoing, signal: AbortSignal | undefined, timeoutMs: number) {
  return new Promise<Answer>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const https = request.url.startsWith('https:');
    const outgoing = (https ? httpsRequest : httpRequest)(
      request.url,
      {
        agent: https ? httpsAgent : httpAgent,
        method: request.method,
        // A request signed later gets its headers then, all at once.
        headers: request.sign ? undefined : Object.fromEntries(request.headers),
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          settle();
          let headers: Headers | undefined;
          resolve({
            status: response.statusCode as number,
            statusText: response.statusMessage as string,
            // Made when asked for: a successful call never reads them.
            get headers() {
              headers ??= new Headers(response.headers as Record<string, string>);
              return headers;
            },
            text,
          });
        });
        response.on('error', fail);
      },
    );
    const timer = setTimeout(() => fail(timeoutError()), timeoutMs);
    const abort = () => fail(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    function settle() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
    function fail(error: unknown) {
      settle();
      reject(error);
      outgoing.destroy();
    }
    outgoing.on('error', fail);
    const { sign } = request;
    if (!sign) {
      outgoing.end(request.body);
      return;
    }
    // Signed once the socket can take the bytes: a new socket connects in its own time, so
    // calls signed when asked for would reach the server in another order than their nonces.
    const signAndSend = () => {
      if (outgoing.destroyed) return;
      Promise.resolve(sign()).then(() => {
        if (outgoing.destroyed) return;
        for (const [name, value] of request.headers) outgoing.setHeader(name, value);
        outgoing.end(request.body);
      }, fail);
    };
    outgoing.once('socket', (socket) => {
      if (socket.connecting) socket.once(https ? 'secureConnect' : 'connect', signAndSend);
      else signAndSend();
    });
  });
}

// A fetch installed after this module loaded is one the application chose (a test double, a
// polyfill), so calls go through it.
const fetchAtLoad = globalThis.fetch;

/** On Node: node:http, unless the global fetch was replaced after this module loaded. */
export const defaultSend: Send = (request, signal, timeoutMs) =>
  (globalThis.fetch === fetchAtLoad ? sendHttp : fetchSend(globalThis.fetch))(
    request,
    signal,
    timeoutMs,
  );
