/** What a scripted fetch does for one request: answer, throw, or hang until aborted. */
export type ScriptedReply = Response | Error | 'hang';

/** A request as the fetch received it, with its body read once. */
export interface SentRequest {
  request: Request;
  body: string;
}

export interface ScriptOptions {
  /** Where a request goes once the script is spent (the real network); a 500 without it. */
  otherwise?: typeof globalThis.fetch;
}

/**
 * A fetch for clients that take one: it records every request and answers each from the
 * script in turn, so a test sees what a client sent and how it took a given answer without
 * mocking a module or the global fetch.
 */
export function scriptedFetch(script: ScriptedReply[] = [], options: ScriptOptions = {}) {
  const sent: SentRequest[] = [];
  // Called on its own, not as a method of `options`: a browser's fetch refuses another `this`.
  const { otherwise } = options;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    sent.push({ request, body: request.body ? await request.clone().text() : '' });
    const next = script.shift();
    if (next === undefined) {
      return otherwise ? otherwise(input, init) : new Response('script exhausted', { status: 500 });
    }
    if (next === 'hang') {
      const signal = init?.signal ?? request.signal;
      return new Promise<Response>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, sent };
}

/** A server's answer, as a test writes it: a JSON body (a string is sent as it is). */
export interface JsonReply {
  body: unknown;
  status?: number;
  /** `application/json` unless told otherwise. */
  type?: string;
  headers?: Record<string, string>;
}

/** The Response of a JSON answer. */
export function jsonReply(reply: JsonReply): Response {
  const { body } = reply;
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status: reply.status ?? 200,
    headers: { 'content-type': reply.type ?? 'application/json', ...reply.headers },
  });
}
