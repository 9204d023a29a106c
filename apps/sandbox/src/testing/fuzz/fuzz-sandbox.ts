/**
 * The sandbox the fuzzer calls: a real process started through the published testing entry,
 * with a user session of the demo partner and a live order of the demo user, so requests
 * reach past their lookups (a session id, an order id) to the store. Started again if a request brought it down, so that shrinking
 * can reproduce a crash step by step.
 */
import { operationTable } from '@exchange-kit/contract/exchange';
import type { SessionCredentials } from '@exchange-kit/core/auth';
import { type SandboxProcess, startSandboxProcess } from '../../testing.js';
import type { FuzzRequest, FuzzTarget } from './fuzz-requests.js';
import { fillIn, placeholder } from './known-values.js';
import { stateReads } from './observed-state.js';
import { type SandboxCaller, sandboxCaller } from './sandbox-caller.js';

export interface FuzzSandbox {
  caller: SandboxCaller;
  target: FuzzTarget;
  reads: FuzzRequest[];
  /** What the placeholders stand for now. */
  knownValues(): Record<string, string>;
  /** Before a batch: a sandbox that answers (a fresh one if needed) and a live demo order. */
  prepare(): Promise<void>;
  stop(): Promise<void>;
}

// Anonymous partner calls are limited per key and per address by default; the fuzzer sends
// thousands from one address, and a 429 for each would hide every other answer.
const unlimited = ['--key-rate-limit', '1000000/1', '--address-rate-limit', '1000000/1'];

const startTimeoutMs = 60_000;
const answerTimeoutMs = 15_000;

async function openSession(running: SandboxProcess): Promise<SessionCredentials> {
  const response = await fetch(`${running.partnerUrl}/api/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ public_api_key: running.publicApiKey }),
  });
  const { payload } = (await response.json()) as {
    payload: { session_id: string; session_secret: string };
  };
  return { sessionId: payload.session_id, sessionSecret: payload.session_secret };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/openapi/exchange.json`, {
      signal: AbortSignal.timeout(answerTimeoutMs),
    });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function signedCall(
  operationId: 'getOrder' | 'createOrder',
  url: string,
  body?: unknown,
): FuzzRequest {
  const { method } = operationTable[operationId];
  return {
    api: 'exchange',
    signing: 'service',
    operationId,
    method,
    url,
    credential: 'signed',
    ...(body === undefined ? {} : { contentType: 'application/json', body: JSON.stringify(body) }),
  };
}

export async function startFuzzSandbox(): Promise<FuzzSandbox> {
  // The demo user's resting order, placed anew whenever a batch cancelled or filled it.
  const order = { id: '', clientId: '', placed: 0 };
  let sessionId = '';
  const values = () => ({
    order_id: order.id,
    client_order_id: order.clientId,
    session_id: sessionId,
  });

  async function start(): Promise<{ running: SandboxProcess; caller: SandboxCaller }> {
    const running = await startSandboxProcess(startTimeoutMs, unlimited);
    const session = await openSession(running);
    sessionId = session.sessionId;
    const caller = sandboxCaller({
      urls: { exchange: running.exchangeUrl, partner: running.partnerUrl },
      token: { tokenId: running.tokenId, tokenSecret: running.tokenSecret },
      session,
      timeoutMs: answerTimeoutMs,
      fillIn: (text) => fillIn(text, values()),
    });
    order.id = '';
    return { running, caller };
  }
  let { running, caller } = await start();

  async function orderIsLive(): Promise<boolean> {
    if (order.id === '') return false;
    const path = operationTable.getOrder.path.replace('{order_id}', order.id);
    const answer = await caller.send(signedCall('getOrder', path));
    return (
      answer.status === 200 && (JSON.parse(answer.text) as { status?: string }).status === 'live'
    );
  }

  async function placeOrder(): Promise<void> {
    order.placed += 1;
    const clientId = `fuzz-resting-${order.placed}`;
    // A buy far below the market: it rests, and nothing the fuzzer sends is likely to fill it.
    const body = {
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.001',
      price: '1',
      client_order_id: clientId,
    };
    const answer = await caller.send(
      signedCall('createOrder', operationTable.createOrder.path, body),
    );
    if (answer.status !== 200) {
      throw new Error(
        `the resting order was refused: ${answer.status} ${answer.text.slice(0, 300)}`,
      );
    }
    order.id = String((JSON.parse(answer.text) as { id: number | string }).id);
    order.clientId = clientId;
  }

  const fuzz: FuzzSandbox = {
    caller: { send: (request) => caller.send(request), close: () => caller.close() },
    target: {
      // The demo partner's key is the same on every start; the order is filled in when sent.
      known: {
        public_api_key: running.publicApiKey,
        api_key: running.publicApiKey,
        order_id: placeholder('order_id'),
        client_order_id: placeholder('client_order_id'),
        session_id: placeholder('session_id'),
      },
    },
    reads: stateReads(running.publicApiKey),
    knownValues: values,
    async prepare() {
      if (!(await answers(running.exchangeUrl))) {
        caller.close();
        await running.stop();
        ({ running, caller } = await start());
      }
      if (!(await orderIsLive())) await placeOrder();
    },
    async stop() {
      caller.close();
      await running.stop();
    },
  };
  return fuzz;
}
