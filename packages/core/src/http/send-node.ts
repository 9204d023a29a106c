import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { whenAborted } from './abort-listeners.js';
import { closeIdleSockets } from './idle-sockets.js';
import { type Answer, fetchSend, type Outgoing, type Send, timeoutError } from './send.js';

const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });
// Idle sockets close after 4 s, as undici's do: before the keep-alive timeout of most servers
// (Node's is 5 s), so a reused socket is seldom one the server is closing at that moment.
const idleSockets = { idleMs: 4_000, everyMs: 500 };
const httpIdle = closeIdleSockets(httpAgent, idleSockets);
const httpsIdle = closeIdleSockets(httpsAgent, idleSockets);

type Origin = Pick<RequestOptions, 'hostname' | 'port' | 'auth'> & { https: boolean };

// A client talks to one or two origins: each is parsed once, not with every call (node:http
// given a URL string parses it whole again).
const origins = new Map<string, Origin>();
const maxOrigins = 64;

function originOf(text: string): Origin {
  const known = origins.get(text);
  if (known) return known;
  const { protocol, hostname, port, auth } = urlToHttpOptions(new URL(text));
  const origin = { https: protocol === 'https:', hostname, port, auth };
  if (origins.size >= maxOrigins) origins.clear();
  origins.set(text, origin);
  return origin;
}

/**
 * The options of one request, always built in this one shape: node:http reads them on every
 * call, and options of varying shapes (a spread origin) cost it more than the rest of this
 * module does.
 */
function requestOptions(request: Outgoing): RequestOptions {
  const { url } = request;
  const pathAt = url.indexOf('/', url.indexOf('//') + 2);
  const origin = originOf(pathAt === -1 ? url : url.slice(0, pathAt));
  return {
    hostname: origin.hostname,
    port: origin.port,
    auth: origin.auth,
    // Path and query string, exactly as signed.
    path: pathAt === -1 ? '/' : url.slice(pathAt),
    agent: origin.https ? httpsAgent : httpAgent,
    method: request.method,
    // A request signed later gets its headers then, all at once.
    headers: request.sign ? undefined : request.headers.toRecord(),
  };
}

/** An answer whose headers become a Headers only when asked for: a success never reads them. */
class NodeAnswer implements Answer {
  #headers: Headers | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    private readonly rawHeaders: IncomingHttpHeaders,
    readonly text: string,
  ) {}

  get headers(): Headers {
    this.#headers ??= new Headers(this.rawHeaders as Record<string, string>);
    return this.#headers;
  }
}

/**
 * Node's global fetch spends more per call than the whole rest of a call (a Request, a second
 * URL parse, web streams); node:http with a keep-alive agent does not.
 */
function sendHttp(request: Outgoing, signal: AbortSignal | undefined, timeoutMs: number) {
  return new Promise<Answer>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const options = requestOptions(request);
    const https = options.agent === httpsAgent;
    const idle = https ? httpsIdle : httpIdle;
    idle.watch();
    const outgoing = (https ? httpsRequest : httpRequest)(options, (response) => {
      idle.noteAnswer(response);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        settle();
        resolve(
          new NodeAnswer(
            response.statusCode as number,
            response.statusMessage as string,
            response.headers,
            text,
          ),
        );
      });
      response.on('error', fail);
    });
    const timer = setTimeout(() => fail(timeoutError()), timeoutMs);
    const stopWaiting = whenAborted(signal, () => fail(signal?.reason));
    function settle() {
      clearTimeout(timer);
      stopWaiting();
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
    const send = () => {
      if (outgoing.destroyed) return;
      const headers = request.headers.toRecord();
      try {
        for (const name in headers) outgoing.setHeader(name, headers[name] as string);
      } catch (error) {
        fail(error);
        return;
      }
      outgoing.end(request.body);
    };
    // Signed once the socket can take the bytes: a new socket connects in its own time, so
    // calls signed when asked for would reach the server in another order than their nonces.
    // A synchronous signer is written in the same turn, with nothing queued in between.
    const signAndSend = () => {
      if (outgoing.destroyed) return;
      let signing: Promise<void> | void;
      try {
        signing = sign();
      } catch (error) {
        fail(error);
        return;
      }
      if (signing) signing.then(send, fail);
      else send();
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
