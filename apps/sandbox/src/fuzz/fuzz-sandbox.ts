/**
 * The sandbox the fuzzer calls: a real process started through the published testing entry,
 * with a user session of the demo partner, started again if a request brought it down so
 * that shrinking can reproduce the crash step by step.
 */
import type { SessionCredentials } from '@exchange-kit/core/auth';
import { type SandboxProcess, startSandboxProcess } from '../testing.js';
import type { FuzzTarget } from './fuzz-requests.js';
import { stateReads } from './observed-state.js';
import { type SandboxCaller, sandboxCaller } from './sandbox-caller.js';

export interface FuzzSandbox {
  caller: SandboxCaller;
  target: FuzzTarget;
  reads: ReturnType<typeof stateReads>;
  /** Starts a fresh sandbox if the current one no longer answers. */
  revive(): Promise<void>;
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

async function connect(running: SandboxProcess) {
  const session = await openSession(running);
  const caller = sandboxCaller({
    urls: { exchange: running.exchangeUrl, partner: running.partnerUrl },
    token: { tokenId: running.tokenId, tokenSecret: running.tokenSecret },
    session,
    timeoutMs: answerTimeoutMs,
  });
  return caller;
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

export async function startFuzzSandbox(): Promise<FuzzSandbox> {
  let running = await startSandboxProcess(startTimeoutMs, unlimited);
  let caller = await connect(running);
  const fuzz: FuzzSandbox = {
    caller: {
      send: (request) => caller.send(request),
      close: () => caller.close(),
    },
    target: { known: {} },
    reads: [],
    async revive() {
      if (await answers(running.exchangeUrl)) return;
      caller.close();
      await running.stop();
      running = await startSandboxProcess(startTimeoutMs, unlimited);
      caller = await connect(running);
      describeTarget();
    },
    async stop() {
      caller.close();
      await running.stop();
    },
  };
  function describeTarget() {
    // A value that reaches past a lookup: the demo partner's key, the same on every start,
    // so a request shrunk after a restart still means what it meant.
    fuzz.target.known = { public_api_key: running.publicApiKey, api_key: running.publicApiKey };
    fuzz.reads = stateReads(running.publicApiKey);
  }
  describeTarget();
  return fuzz;
}
