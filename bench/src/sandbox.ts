/**
 * The sandbox under load: an order edit/cancel/create mix and public reads, with autocannon
 * at 16 connections, beside the store's own ceiling (the same edit transaction issued to the
 * store directly, no HTTP), Quick Exchange intents (decided in memory, stored in batches)
 * and a stateless mock (Prism) answering the same spec. Also: time from start to `ready` on an
 * existing data folder.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { channelAddress, eventsPath } from '@exchange-kit/contract/events';
import { serviceAuthJwt } from '@exchange-kit/core/auth';
import {
  addDeepOffers,
  addDemoFillHistory,
  addDemoLedgerHistory,
  addDemoOrderHistory,
  addDemoPositionHistory,
  addDemoToken,
  addOpenPositions,
  addSecondDemoToken,
  freshPostgresDatabase,
  storeCeiling as measureStoreCeiling,
  type RunningSandbox,
  startSandbox,
} from '@exchange-kit/sandbox/bench';
import { spawnSandbox as spawnSandboxProcess } from '@exchange-kit/sandbox/testing';
import autocannon from 'autocannon';
import { openIdleConnections } from './idle-connections.js';
import { type Subscribers, startSubscribers } from './subscribers.js';

const connections = 16;
const seconds = 8;
// Write rows swing by a fifth from one 8 s round to the next on a shared 2-core machine: each
// is the median of several rounds, shown with their range.
const writeRounds = 3;
const sandboxDir = fileURLToPath(
  new URL('.', import.meta.resolve('@exchange-kit/sandbox/package.json')),
);
const specPath = fileURLToPath(import.meta.resolve('@exchange-kit/contract/exchange/openapi.json'));

type Token = { tokenId: string; tokenSecret: string };

interface Load {
  name: string;
  perSecond: number;
  p99Ms: number;
  failed: number;
  /** Lowest and highest of the rounds a median row was taken from. */
  range?: { perSecond: [number, number]; p99Ms: [number, number] };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const span = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];

/** `measure` run `writeRounds` times: the median of each figure, the sum of failures. */
async function rounds(measure: () => Promise<Load>): Promise<Load> {
  const loads: Load[] = [];
  for (let n = 0; n < writeRounds; n++) loads.push(await measure());
  return medianOf(loads);
}

function medianOf(loads: Load[]): Load {
  const perSecond = loads.map((round) => round.perSecond);
  const p99Ms = loads.map((round) => round.p99Ms);
  return {
    name: (loads[0] as Load).name,
    perSecond: median(perSecond),
    p99Ms: median(p99Ms),
    failed: loads.reduce((sum, round) => sum + round.failed, 0),
    range: { perSecond: span(perSecond), p99Ms: span(p99Ms) },
  };
}

async function load(name: string, options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return {
    name,
    perSecond: result.requests.average,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors,
  };
}

/** A load generator's request hook cannot wait: on Node a JWT is signed at once. */
function signedNow(jwt: string | Promise<string>): string {
  if (typeof jwt !== 'string') throw new Error('signing is synchronous on Node');
  return jwt;
}

const sign = (token: Token, path: string) => signedNow(serviceAuthJwt(token, { path }));

/** Places an order of `token`'s user: its status, its parsed body, and how long it took. */
async function placeSigned(exchangeUrl: string, token: Token, order: object) {
  const started = performance.now();
  const response = await fetch(`${exchangeUrl}/orders`, {
    method: 'POST',
    body: JSON.stringify(order),
    headers: { 'content-type': 'application/json', 'x-service-auth': sign(token, '/orders') },
  });
  const ms = performance.now() - started;
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, ms };
}
const newOrder = (clientOrderId: string) =>
  JSON.stringify({
    order_type: 'limit',
    product_id: 1,
    side: 'buy',
    quantity: '0.001',
    price: '9000000',
    client_order_id: clientOrderId,
  });

/**
 * A token and the orders it works on. autocannon hands every request a fresh context, so
 * lanes go round-robin; with far more lanes than connections, no two calls in flight share a
 * token (whose nonces must arrive in order) or an order.
 */
interface Connection {
  token: Token;
  orders: number[];
  cancelling?: number;
}

/** What autocannon keeps per connection between a request and its response. */
interface LaneContext {
  lane?: Connection;
  creating?: boolean;
}

const laneCount = connections * 8;

/** The lanes' tokens and resting orders, written to the store before the load. */
async function prepareLanes(sandbox: RunningSandbox): Promise<Connection[]> {
  const lanes: Connection[] = [];
  for (let n = 0; n < laneCount; n++) {
    const token = await addDemoToken(sandbox);
    const orders: number[] = [];
    for (let k = 0; k < 20; k++) {
      const response = await fetch(`${sandbox.exchangeUrl}/orders`, {
        method: 'POST',
        body: newOrder(`bench-${n}-${k}`),
        headers: { 'content-type': 'application/json', 'x-service-auth': sign(token, '/orders') },
      });
      orders.push(((await response.json()) as { id: number }).id);
    }
    lanes.push({ token, orders });
  }
  return lanes;
}

// Client order ids must not repeat: counted across every round.
let created = 0;

async function writeMix(exchangeUrl: string, lanes: Connection[]): Promise<Load> {
  let lane = 0;
  return load('order edit / cancel / create mix (writes)', {
    url: exchangeUrl,
    requests: [
      {
        setupRequest: (request, context: LaneContext) => {
          context.lane ??= lanes[lane++ % lanes.length];
          context.creating = false;
          const own = context.lane as Connection;
          const roll = Math.random();
          const id = own.orders[Math.floor(Math.random() * own.orders.length)];
          if (id === undefined || roll > 0.9) {
            context.creating = true;
            const path = '/orders';
            return {
              ...request,
              method: 'POST',
              path,
              body: newOrder(`bench-more-${created++}`),
              headers: {
                'content-type': 'application/json',
                'x-service-auth': sign(own.token, path),
              },
            };
          }
          if (roll > 0.8) {
            own.orders.splice(own.orders.indexOf(id), 1);
            const path = `/orders/${id}/cancel`;
            return {
              ...request,
              method: 'PUT',
              path,
              body: undefined,
              headers: { 'x-service-auth': sign(own.token, path) },
            };
          }
          const path = `/orders/${id}`;
          const price = String(8_000_000 + Math.floor(Math.random() * 900_000));
          return {
            ...request,
            method: 'PUT',
            path,
            body: JSON.stringify({ price }),
            headers: {
              'content-type': 'application/json',
              'x-service-auth': sign(own.token, path),
            },
          };
        },
        onResponse: (status, body, context: LaneContext) => {
          // An edit answers with the order too: only a placement adds one to the lane.
          const created =
            context.creating === true &&
            status === 200 &&
            /"status":"live"/.test(body) &&
            /"client_order_id":"bench-more-/.test(body);
          const id = created ? Number(/"id":(\d+)/.exec(body)?.[1]) : undefined;
          if (id !== undefined && context.lane) context.lane.orders.push(id);
        },
      },
    ],
  });
}

/** The same POST again and again, each signed by the next of `tokens` in turn. */
function roundRobinPosts(
  tokens: Token[],
  path: string,
  body: string,
  signed: (token: Token) => string,
): autocannon.Request {
  let lane = 0;
  return {
    setupRequest: (request) => ({
      ...request,
      method: 'POST',
      path,
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-auth': signed(tokens[lane++ % tokens.length] as Token),
      },
    }),
  };
}

/**
 * Quick Exchange intents of the demo partner: each call decided on the state in memory and
 * its rows (the token's nonce, the intent) stored with group commit, as every call of the
 * sandbox is. One token per lane, as for the order mix.
 */
async function intentWrites(
  server: { partnerUrl: string; publicApiKey: string },
  tokens: Token[],
): Promise<Load> {
  const path = `/api/v1/partner/${server.publicApiKey}/intent`;
  const body = JSON.stringify({
    payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '49.90' },
    strategy: 'ONE_TO_MANY',
  });
  return load('Quick Exchange intents, batched (writes)', {
    url: server.partnerUrl,
    requests: [
      roundRobinPosts(tokens, path, body, (token) =>
        signedNow(serviceAuthJwt(token, { path, delegate: true })),
      ),
    ],
  });
}

/** The price the maker offers at, above every bid of the write mix: only the takers reach it. */
const makerPrice = '9500000';
/** What each taker buys: the maker's offers hold 100,000 of these. */
const takenQuantity = '0.0001';

/**
 * The maker's side of the matching rows: the second demo user offers its 10 BTC, in ten
 * orders, where no bid of the write mix reaches.
 */
async function offerToTakers(sandbox: RunningSandbox): Promise<void> {
  const maker = await addSecondDemoToken(sandbox);
  for (let n = 0; n < 10; n++) {
    const offer = {
      order_type: 'limit',
      product_id: 1,
      side: 'sell',
      quantity: '1',
      price: makerPrice,
    };
    const { status, body } = await placeSigned(sandbox.exchangeUrl, maker, offer);
    if (status !== 200) throw new Error(`the maker's offer: ${JSON.stringify(body)}`);
  }
}

/**
 * Margin buys that each take part of a resting offer at once: every call makes a fill (an
 * execution for both sides), its ledger entries and fees, and moves the taker's position.
 */
async function matchingWrites(exchangeUrl: string, tokens: Token[]): Promise<Load> {
  const path = '/orders';
  const body = JSON.stringify({
    order_type: 'limit',
    product_id: 1,
    side: 'buy',
    quantity: takenQuantity,
    price: makerPrice,
    trading_type: 'margin',
    leverage_level: 2,
  });
  return load('margin order that fills at once: execution, ledger, fees, position (writes)', {
    url: exchangeUrl,
    requests: [
      {
        ...roundRobinPosts(tokens, path, body, (token) => sign(token, path)),
        onResponse: (status, response) => {
          // A buy left resting measured no fill: the offers ran out, or matching did not happen.
          if (status === 200 && !/"status":"filled"/.test(response)) {
            throw new Error(`a taker's buy did not fill: ${response}`);
          }
        },
      },
    ],
  });
}

// More than one address may hold (2,000 by default), far fewer than the fd limit allows.
const idleCount = 5000;

/** The reads again, while another loopback address holds idle connections to the server. */
async function readsBesideIdle(sandbox: { exchangeUrl: string }): Promise<Load> {
  const idle = await openIdleConnections(sandbox.exchangeUrl, '127.0.0.2', idleCount);
  try {
    const read = await reads(sandbox, 'reads');
    const held = idle.held();
    return {
      ...read,
      name: `reads, beside ${idleCount.toLocaleString('en')} idle connections opened by another address (${held.toLocaleString('en')} held)`,
    };
  } finally {
    idle.close();
  }
}

const reads = (sandbox: { exchangeUrl: string }, name: string) =>
  load(name, {
    url: sandbox.exchangeUrl,
    requests: [
      { method: 'GET', path: '/products' },
      { method: 'GET', path: '/products/1/price_levels' },
      { method: 'GET', path: '/ir_ladders/BTC' },
    ],
  });

/**
 * The edit with nothing around it: decided on the state and its changes (the order, the
 * account, the nonce) committed to the store, one at a time, no HTTP.
 */
async function storeCeiling(sandbox: RunningSandbox): Promise<Load> {
  return {
    name: 'store ceiling: the edit, decided and committed, no HTTP (one at a time)',
    perSecond: await measureStoreCeiling(sandbox, seconds),
    p99Ms: Number.NaN,
    failed: 0,
  };
}

async function prismReads(): Promise<Load> {
  const port = 4900 + Math.floor(Math.random() * 90);
  const prism = spawn(
    fileURLToPath(new URL('../node_modules/.bin/prism', import.meta.url)),
    ['mock', specPath, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('prism did not start in 60 s')), 60_000);
      const watch = (line: string) => {
        if (/Prism is listening/.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      };
      createInterface({ input: prism.stdout }).on('line', watch);
      createInterface({ input: prism.stderr }).on('line', watch);
      prism.once('exit', (code) => reject(new Error(`prism exited with ${code}`)));
    });
    return await reads(
      { exchangeUrl: `http://127.0.0.1:${port}` },
      'reads from Prism mock (stateless, same spec)',
    );
  } finally {
    prism.kill('SIGTERM');
  }
}

/** Where a sandbox keeps its data: a PGlite folder or a PostgreSQL database. */
type Store = { dataDir: string } | { databaseUrl: string };

const storeArgs = (store: Store) =>
  'dataDir' in store ? ['--data-dir', store.dataDir] : ['--database-url', store.databaseUrl];

/** The built `exchange-sandbox` in a process of its own, as users start it. */
const spawnSandbox = (store: Store, timeoutMs = 60_000) =>
  spawnSandboxProcess({ built: true, args: storeArgs(store), timeoutMs });

const buildSandbox = () =>
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: sandboxDir, stdio: 'inherit' });

/** Median of five starts of the built `exchange-sandbox` on a data folder that holds a store. */
async function startupMs(dataDir: string): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < 5; n++) {
    const started = performance.now();
    const sandbox = await spawnSandbox({ dataDir });
    times.push(performance.now() - started);
    await sandbox.stop();
  }
  return times.sort((a, b) => a - b)[2] as number;
}

/** Orders a store holds for the start-up row on a long history. */
const historyOrders = 1_000_000;
/** Ledger entries of the demo user (in XRP) the same store holds, paged by the history row. */
const historyEntries = 100_000;
/** Fills between those orders, one a minute: a start reads the last day of them. */
const historyFills = 1_000_000;
/** Closed margin positions of the same user, each with the loan it repaid: a start reads none. */
const historyPositions = 1_000_000;
const pageReads = 200;

interface HistoryStartup {
  ms: number;
  peakMb: number;
  /** p99 of `pageReads` signed reads of a page of the demo user's entries, one at a time. */
  balanceHistoryP99Ms: number;
  transactionsP99Ms: number;
  /** The same of the demo user's own fills, a page from among their newest 100,000. */
  ownExecutionsP99Ms: number;
  /** The same of their trades and of their loans, pages from among the newest 100,000. */
  tradesP99Ms: number;
  loansP99Ms: number;
  /** The floor: the same of a signed read answered from memory (the caller's balances). */
  memoryP99Ms: number;
}

/** The reads whose p99 the history row gives, each a path for its `n`th read. */
const historyReads = {
  balanceHistoryP99Ms: (n: number) =>
    `/balance_history?currency=XRP&limit=20&timestamp_lte=${2_000_000_000 - n}`,
  transactionsP99Ms: (n: number) =>
    `/transactions?currency=XRP&limit=20&page=${1 + ((n * 37) % 5000)}`,
  ownExecutionsP99Ms: (n: number) =>
    `/executions/me?product_id=1&limit=20&page=${1 + ((n * 37) % 5000)}`,
  tradesP99Ms: (n: number) => `/trades?limit=20&page=${1 + ((n * 37) % 5000)}`,
  loansP99Ms: (n: number) => `/loans?currency=JPY&limit=20&page=${1 + ((n * 37) % 5000)}`,
  memoryP99Ms: () => '/accounts/balance',
};

/**
 * p99 of `pageReads` signed GETs of each of `historyReads`, one call at a time and the reads
 * taken in turn, so the pages and the floor meet the same moments of the process: after an
 * untimed pass, since the store's WebAssembly is compiled as it is used, over thousands of
 * queries, and a start on a store written in bulk gathers its planner statistics.
 */
async function pageP99s(
  sandbox: { exchangeUrl: string } & Token,
): Promise<Record<keyof typeof historyReads, number>> {
  const reads = Object.entries(historyReads);
  const times = reads.map((): number[] => []);
  for (const timed of [false, true]) {
    for (let n = 0; n < pageReads; n++) {
      for (const [k, [, path]] of reads.entries()) {
        const ms = await signedGetMs(sandbox, path(n));
        if (timed) times[k]?.push(ms);
      }
    }
  }
  const p99 = (values: number[]) =>
    values.sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1] as number;
  return Object.fromEntries(reads.map(([name], k) => [name, p99(times[k] ?? [])])) as Record<
    keyof typeof historyReads,
    number
  >;
}

async function signedGetMs(sandbox: { exchangeUrl: string } & Token, url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${sandbox.exchangeUrl}${url}`, {
    headers: { 'x-service-auth': sign(sandbox, url) },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - started;
}

/** A start of the built `exchange-sandbox`: how long until `ready`, and its peak resident memory. */
async function measuredStart(dataDir: string) {
  const started = performance.now();
  const sandbox = await spawnSandbox({ dataDir }, 180_000);
  const ms = performance.now() - started;
  const status = await readFile(`/proc/${sandbox.pid}/status`, 'utf8').catch(() => '');
  const peakKb = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  return { sandbox, ms, peakMb: peakKb / 1024 };
}

const medianStart = (starts: { ms: number; peakMb: number }[]) =>
  starts.sort((a, b) => a.ms - b.ms)[Math.floor(starts.length / 2)] as {
    ms: number;
    peakMb: number;
  };

/** Fills of the busy-day row: one a millisecond up to now, all of them in the last day. */
const busyFills = 1_000_000;

/**
 * Starts (median of three) on the demo data and `busyFills` fills of its last minutes, whose
 * day the market figures are made of: read folded per second, not fill by fill. Each start
 * answers the product's figures.
 */
async function busyDayStartup(dataDir: string): Promise<{ ms: number; peakMb: number }> {
  await addDemoOrderHistory({ dataDir }, 100);
  await addDemoFillHistory({ dataDir }, busyFills, 1);
  const starts: { ms: number; peakMb: number }[] = [];
  for (let n = 0; n < 3; n++) {
    const { sandbox, ...start } = await measuredStart(dataDir);
    try {
      const product = await fetch(`${sandbox.exchangeUrl}/products/1`);
      const body = (await product.json()) as { volume_24h?: string };
      if (product.status !== 200 || Number(body.volume_24h) < busyFills * 0.01) {
        throw new Error(`a busy day's figures: ${product.status} ${JSON.stringify(body)}`);
      }
    } finally {
      await sandbox.stop();
    }
    starts.push(start);
  }
  return medianStart(starts);
}

/**
 * Writes what `add` adds to the store under `dataDir` with a sandbox in this process, then
 * starts the built one on it: the demo user's token for it, and the server, to stop.
 */
async function builtOn(dataDir: string, add: (fixtures: RunningSandbox) => Promise<void>) {
  const fixtures = await startSandbox({ port: 0, dataDir });
  let token: Token;
  try {
    token = await addDemoToken(fixtures);
    await add(fixtures);
  } finally {
    await fixtures.close();
  }
  return { token, server: await spawnSandbox({ dataDir }, 180_000) };
}

/** Offers of the deep-book row, each at a price of its own above the demo's asks. */
const deepOffers = 60_000;

/**
 * One order that takes a deep book whole: `deepOffers` offers placed in one call, then one
 * market buy of everything the ask side holds, each offer a fill of that one call. How long
 * the buy takes to answer, with its fills, their ledger entries and the orders stored.
 */
async function deepBookTaken(dataDir: string): Promise<{ fills: number; ms: number }> {
  const { token, server } = await builtOn(dataDir, (fixtures) =>
    addDeepOffers(fixtures, { count: deepOffers, quantity: '0.0001', lowest: 9_600_000 }),
  );
  try {
    const book = await fetch(`${server.exchangeUrl}/products/1/price_levels?full=1`);
    const { sell_price_levels: asks } = (await book.json()) as {
      sell_price_levels: [string, string][];
    };
    // In ten-thousandths of a BTC, the offers' unit: summed exactly.
    const units = asks.reduce((sum, [, quantity]) => sum + Math.round(Number(quantity) * 1e4), 0);
    const quantity = (units / 1e4).toFixed(4);
    const buy = { order_type: 'market', product_id: 1, side: 'buy', quantity };
    const { status, body, ms } = await placeSigned(server.exchangeUrl, token, buy);
    if (status !== 200 || Number(body.filled_quantity) !== Number(quantity)) {
      throw new Error(`the deep book taken: ${status} ${JSON.stringify(body)}`);
    }
    // One order at each price: as many fills as levels.
    return { fills: asks.length, ms };
  } finally {
    await server.stop();
  }
}

/** Open margin positions of the moved-mark row, all on product 1. */
const openPositions = 20_000;

/**
 * Fills that each move product 1's mark price while `openPositions` margin positions are
 * open on it, one at a time against the built sandbox in its own process: the first after
 * the start, which reads every open position for the prices that reach it, and the median
 * of three after it, which read only those the mark reaches.
 */
async function markMovedFills(dataDir: string): Promise<{ first: number; later: number }> {
  const { token, server } = await builtOn(dataDir, (fixtures) =>
    addOpenPositions(fixtures, { count: openPositions, price: 9_600_000, moves: 4 }),
  );
  try {
    const buy = {
      order_type: 'market',
      product_id: 1,
      side: 'buy',
      quantity: '0.0001',
      trading_type: 'margin',
      leverage_level: 2,
    };
    const times: number[] = [];
    for (let n = 0; n < 4; n++) {
      const { status, body, ms } = await placeSigned(server.exchangeUrl, token, buy);
      times.push(ms);
      if (status !== 200 || body.status !== 'filled') {
        throw new Error(`a fill that moves the mark: ${status} ${JSON.stringify(body)}`);
      }
    }
    const [first = Number.NaN, ...later] = times;
    return { first, later: median(later) };
  } finally {
    await server.stop();
  }
}

const markMovedSentence = ({ first, later }: { first: number; later: number }) =>
  `A margin fill that moves the mark price while ${openPositions.toLocaleString('en')} margin positions, half long and half short, are open on the product, one at a time: ${Math.round(first)} ms to answer the first after a start, which reads every open position for the prices that reach it, and ${later.toFixed(1)} ms for each one after it (median of 3), which reads only the positions the new mark reaches.`;

const deepBookSentence = (deep: { fills: number; ms: number }) =>
  `One market buy that takes a book of ${deep.fills.toLocaleString('en')} offers whole, each a fill of that one call, placed in one call before (in its own process, the offers read at start): ${(deep.ms / 1000).toFixed(1)} s to answer, every fill, ledger entry and order stored.`;

/** The deep book taken and the moved mark alone (`pnpm bench:only deep`): rows of the sandbox part. */
export async function deepBookBench(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-deep-'));
  const marksDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-marks-'));
  try {
    buildSandbox();
    const deep = deepBookSentence(await deepBookTaken(dataDir));
    const moved = markMovedSentence(await markMovedFills(marksDir));
    return [
      '## One call of many rows, and many positions at a new mark',
      '',
      `${deep} ${moved}`,
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(marksDir, { recursive: true, force: true });
  }
}

/** The long-history start and its pages, as the sandbox part and the history part both say. */
const historySentence = (history: HistoryStartup) =>
  `On the demo data and ${(historyOrders / 1e6).toLocaleString('en')} million more orders (cancelled ones, added in bulk), ${(historyFills / 1e6).toLocaleString('en')} million fills between them (one a minute), ${historyEntries.toLocaleString('en')} ledger entries and ${(historyPositions / 1e6).toLocaleString('en')} million closed margin positions with the loans they repaid, all of one user, which a start leaves in the store but the last day of fills (median of 3): ${(history.ms / 1000).toFixed(1)} s to \`ready\`, ${Math.round(history.peakMb)} MB resident at most; a page of 20 read from the store, p99 of ${pageReads} reads of each, one call at a time and the six reads in turn: ${history.balanceHistoryP99Ms.toFixed(1)} ms for \`balance_history\`, ${history.transactionsP99Ms.toFixed(1)} ms for \`transactions\`, ${history.ownExecutionsP99Ms.toFixed(1)} ms for \`executions/me\`, ${history.tradesP99Ms.toFixed(1)} ms for \`trades\` and ${history.loansP99Ms.toFixed(1)} ms for \`loans\` (pages from among the newest 100,000), beside ${history.memoryP99Ms.toFixed(1)} ms for a signed read answered from memory (\`accounts/balance\`), each after an untimed pass of the same reads.`;

/** The long history's start and its pages alone (`pnpm bench:only history`): rows of the sandbox part. */
export async function historyBench(): Promise<string> {
  const historyDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-history-'));
  try {
    buildSandbox();
    await (await spawnSandbox({ dataDir: historyDir })).stop();
    return [
      '## A long history',
      '',
      historySentence(await historyStartup(historyDir)),
      '',
      'Targets: at most 1.5 s and 300 MB, the pages p99 at most 10 ms.',
    ].join('\n');
  } finally {
    await rm(historyDir, { recursive: true, force: true });
  }
}

/**
 * A start of the built `exchange-sandbox` on a data folder that also holds `historyOrders`
 * orders, `historyFills` fills, `historyEntries` ledger entries and `historyPositions` closed
 * positions with their loans (median of three): how long until \`ready\`,
 * the most the process held resident on the way (Linux's VmHWM), the memory a start on that
 * history needs, and the p99 of pages of that ledger read from the store.
 */
async function historyStartup(dataDir: string): Promise<HistoryStartup> {
  await addDemoOrderHistory({ dataDir }, historyOrders);
  await addDemoLedgerHistory({ dataDir }, historyEntries);
  await addDemoFillHistory({ dataDir }, historyFills);
  await addDemoPositionHistory({ dataDir }, historyPositions);
  const starts: { ms: number; peakMb: number }[] = [];
  const pages = {
    balanceHistoryP99Ms: Number.NaN,
    transactionsP99Ms: Number.NaN,
    ownExecutionsP99Ms: Number.NaN,
    tradesP99Ms: Number.NaN,
    loansP99Ms: Number.NaN,
    memoryP99Ms: Number.NaN,
  };
  for (let n = 0; n < 3; n++) {
    const { sandbox, ...start } = await measuredStart(dataDir);
    starts.push(start);
    if (n === 0) Object.assign(pages, await pageP99s(sandbox));
    await sandbox.stop();
  }
  return { ...medianStart(starts), ...pages };
}

/**
 * The write mix against the server in its own process (so autocannon does not share its
 * thread) beside the store's ceiling, measured in this process with the same fixtures.
 */
async function writesOn(
  store: Store,
): Promise<Watched & { ceiling: Load; intents: Load; matching: Load }> {
  const { lanes, measured: ceiling } = await writeFixtures(store, (fixtures) =>
    rounds(() => storeCeiling(fixtures)),
  );
  const server = await spawnSandbox(store);
  const subscribers = await startSubscribers();
  try {
    const watched = await writesBesideSubscribers(server.exchangeUrl, lanes, subscribers);
    const tokens = lanes.map((lane) => lane.token);
    const intents = await rounds(() => intentWrites(server, tokens));
    const matching = await rounds(() => matchingWrites(server.exchangeUrl, tokens));
    return { ...watched, ceiling, intents, matching };
  } finally {
    subscribers.stop();
    await server.stop();
  }
}

/**
 * The write mix's lanes and the maker's offers the margin fills take, written to `store` by a
 * sandbox in this process, which `whileOpen` measures before it closes.
 */
async function writeFixtures<T>(
  store: Store,
  whileOpen: (fixtures: RunningSandbox) => Promise<T>,
): Promise<{ lanes: Connection[]; measured: T }> {
  const fixtures = await startSandbox({ port: 0, ...store });
  try {
    const lanes = await prepareLanes(fixtures);
    await offerToTakers(fixtures);
    return { lanes, measured: await whileOpen(fixtures) };
  } finally {
    await fixtures.close();
  }
}

/**
 * The write mix and the margin fill alone, rounds in turn on one store: the pair the margin
 * fill's target compares, without the rest of the sandbox's rows (`pnpm bench:only matching`).
 */
export async function matchingBench(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-matching-'));
  try {
    buildSandbox();
    const rows: string[] = [];
    const postgres = await postgresStore();
    const stores: [string, Store][] = [['PGlite', { dataDir }]];
    if (postgres) stores.push(['PostgreSQL', postgres]);
    for (const [label, store] of stores) {
      const { lanes } = await writeFixtures(store, async () => undefined);
      const server = await spawnSandbox(store);
      try {
        const tokens = lanes.map((lane) => lane.token);
        const writes: Load[] = [];
        const matching: Load[] = [];
        for (let n = 0; n < writeRounds; n++) {
          writes.push(await writeMix(server.exchangeUrl, lanes));
          matching.push(await matchingWrites(server.exchangeUrl, tokens));
        }
        const mix = medianOf(writes);
        const fills = medianOf(matching);
        rows.push(tableRow({ ...mix, name: `${label}: ${mix.name}` }));
        rows.push(tableRow({ ...fills, name: `${label}: ${fills.name} (${share(fills, mix)})` }));
      } finally {
        await server.stop();
      }
    }
    return [
      '## Margin fills beside the write mix',
      '',
      `autocannon, ${connections} connections, ${seconds} s per round, against the built \`exchange-sandbox\` in its own process; the two rows' rounds in turn on one store, median of ${writeRounds}, lowest-highest in brackets. In brackets after the margin row: its share of the mix (target at least 70%).`,
      '',
      ...loadTableHead,
      ...rows,
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const watchers = 1_000;
/** The public channels the write mix changes: product 1's book and the product itself. */
const watchedChannels = [
  channelAddress('priceLadders', { pair: 'btcjpy', side: 'buy' }),
  channelAddress('priceLadders', { pair: 'btcjpy', side: 'sell' }),
  channelAddress('productCash', { pair: 'btcjpy', productId: 1 }),
];
/** The same channels of a product the write mix leaves alone. */
const elsewhereChannels = [
  channelAddress('priceLadders', { pair: 'ethjpy', side: 'buy' }),
  channelAddress('priceLadders', { pair: 'ethjpy', side: 'sell' }),
  channelAddress('productCash', { pair: 'ethjpy', productId: 2 }),
];

interface Watched {
  writes: Load;
  /** With `watchers` subscribers connected to another product's channels. */
  elsewhere: Load;
  /** With `watchers` subscribers of the channels the writes change. */
  watched: Load;
  /** Events the watching subscribers received per second of the watched rounds. */
  deliveries: number;
}

/**
 * The write mix, its rounds taken in turn with no subscriber, with `watchers` subscribers
 * connected to channels it does not change, and with `watchers` subscribers of the channels it
 * changes (in a process of their own), so all rows see the same store and machine: what being
 * connected costs the writes, and what publishing every change to every subscriber costs them.
 */
async function writesBesideSubscribers(
  exchangeUrl: string,
  lanes: Connection[],
  subscribers: Subscribers,
): Promise<Watched> {
  const eventsUrl = `${exchangeUrl.replace(/^http/, 'ws')}${eventsPath}?protocol=7`;
  const withSubscribers = async (channels: string[], label: string) => {
    await subscribers.connect(eventsUrl, watchers, channels);
    const round = await writeMix(exchangeUrl, lanes);
    const { received } = await subscribers.stats();
    await subscribers.disconnect();
    return { round: { ...round, name: `${round.name}, ${label}` }, received };
  };
  const plain: Load[] = [];
  const elsewhere: Load[] = [];
  const watched: Load[] = [];
  const received: number[] = [];
  const count = watchers.toLocaleString('en');
  for (let n = 0; n < writeRounds; n++) {
    plain.push(await writeMix(exchangeUrl, lanes));
    const apart = await withSubscribers(
      elsewhereChannels,
      `${count} subscribers of another product connected`,
    );
    // No write changes their channels: anything they hear was published in error.
    if (apart.received > 0) throw new Error(`idle subscribers received ${apart.received} events`);
    elsewhere.push(apart.round);
    const watching = await withSubscribers(watchedChannels, `${count} subscribers of its channels`);
    // Every subscriber of the book hears of the writes, or the row measured nothing.
    if (watching.received < watchers) {
      throw new Error(`the subscribers received ${watching.received} events`);
    }
    watched.push(watching.round);
    received.push(watching.received);
  }
  return {
    writes: medianOf(plain),
    elsewhere: medianOf(elsewhere),
    watched: medianOf(watched),
    deliveries: median(received) / seconds,
  };
}

/** A fresh database on the PostgreSQL the bench runs beside, if it runs beside one. */
async function postgresStore(): Promise<Store | undefined> {
  const serverUrl = process.env.SANDBOX_TEST_DATABASE_URL;
  if (!serverUrl) return undefined;
  return { databaseUrl: await freshPostgresDatabase(serverUrl) };
}

const ranged = (value: string, range: [number, number] | undefined, unit = '') =>
  range ? `${value} (${Math.round(range[0])}-${Math.round(range[1])}${unit})` : value;
const tableRow = (row: Load) => {
  const perSecond = ranged(String(Math.round(row.perSecond)), row.range?.perSecond);
  const p99 = Number.isNaN(row.p99Ms) ? '' : ranged(`${row.p99Ms} ms`, row.range?.p99Ms, ' ms');
  return `| ${row.name} | ${perSecond} | ${p99} | ${row.failed} |`;
};
const loadTableHead = [
  '| load | per second | p99 | non-2xx or errors |',
  '| --- | --- | --- | --- |',
];
const share = (writes: Load, ceiling: Load) =>
  `${Math.round((writes.perSecond / ceiling.perSecond) * 100)}%`;

export async function sandboxBench(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-'));
  const historyDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-history-'));
  const busyDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-busy-'));
  const deepDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-deep-'));
  const marksDir = await mkdtemp(join(tmpdir(), 'sandbox-bench-marks-'));
  try {
    buildSandbox();
    // The demo data alone: a start that does not depend on how much the rounds below write.
    await (await spawnSandbox({ dataDir })).stop();
    const demoStartup = await startupMs(dataDir);
    const pglite = await writesOn({ dataDir });
    const server = await spawnSandbox({ dataDir });
    let read: Load;
    let readBesideIdle: Load;
    try {
      read = await reads(server, 'reads: products, order book, loan book');
      readBesideIdle = await readsBesideIdle(server);
    } finally {
      await server.stop();
    }
    const startup = await startupMs(dataDir);
    // History on the demo data alone, apart from the rounds' open orders and positions, which
    // a start reads and the row above measures: what the history itself costs a start.
    await (await spawnSandbox({ dataDir: historyDir })).stop();
    const history = await historyStartup(historyDir);
    await (await spawnSandbox({ dataDir: busyDir })).stop();
    const busy = await busyDayStartup(busyDir);
    const deep = await deepBookTaken(deepDir);
    const marked = await markMovedFills(marksDir);
    const prism = await prismReads().catch((error: Error) => ({
      name: `Prism mock: ${error.message}`,
      perSecond: Number.NaN,
      p99Ms: Number.NaN,
      failed: 0,
    }));
    const postgres = await postgresStore();
    const onPostgres = postgres ? await writesOn(postgres) : undefined;
    return [
      '## Sandbox',
      '',
      `autocannon, ${connections} connections, ${seconds} s per round, against the built \`exchange-sandbox\` in its own process. Write rows and ceilings: median of ${writeRounds} rounds on one server and store, lowest-highest in brackets.`,
      '',
      ...loadTableHead,
      tableRow({ ...pglite.writes, name: `PGlite: ${pglite.writes.name}` }),
      tableRow({ ...pglite.elsewhere, name: `PGlite: ${pglite.elsewhere.name}` }),
      tableRow({ ...pglite.watched, name: `PGlite: ${pglite.watched.name}` }),
      tableRow({ ...pglite.ceiling, name: `PGlite: ${pglite.ceiling.name}` }),
      tableRow({ ...pglite.intents, name: `PGlite: ${pglite.intents.name}` }),
      tableRow({ ...pglite.matching, name: `PGlite: ${pglite.matching.name}` }),
      tableRow(read),
      tableRow(readBesideIdle),
      tableRow(prism),
      ...(onPostgres
        ? [
            tableRow({ ...onPostgres.writes, name: `PostgreSQL: ${onPostgres.writes.name}` }),
            tableRow({
              ...onPostgres.elsewhere,
              name: `PostgreSQL: ${onPostgres.elsewhere.name}`,
            }),
            tableRow({ ...onPostgres.watched, name: `PostgreSQL: ${onPostgres.watched.name}` }),
            tableRow({ ...onPostgres.ceiling, name: `PostgreSQL: ${onPostgres.ceiling.name}` }),
            tableRow({ ...onPostgres.intents, name: `PostgreSQL: ${onPostgres.intents.name}` }),
            tableRow({
              ...onPostgres.matching,
              name: `PostgreSQL: ${onPostgres.matching.name}`,
            }),
          ]
        : []),
      '',
      `With ${watchers.toLocaleString('en')} subscribers connected to another product's channels the write mix runs at ${share(pglite.elsewhere, pglite.writes)} of its rate without them on PGlite${onPostgres ? ` and ${share(onPostgres.elsewhere, onPostgres.writes)} on PostgreSQL` : ''}. With ${watchers.toLocaleString('en')} subscribers of the channels it changes, every write is two events to each of them (its side of the book and the product): the subscribers received ${Math.round(pglite.deliveries).toLocaleString('en')} events/s on PGlite${onPostgres ? ` and ${Math.round(onPostgres.deliveries).toLocaleString('en')} on PostgreSQL` : ''}, to compare with the fan-out floor of the Events table, and the writes wait on that. A margin order that fills at once runs at ${share(pglite.matching, pglite.writes)} of the write mix's rate on PGlite${onPostgres ? ` and ${share(onPostgres.matching, onPostgres.writes)} on PostgreSQL` : ''}. Writes reach ${share(pglite.writes, pglite.ceiling)} of the store's own ceiling on PGlite${onPostgres ? ` and ${share(onPostgres.writes, onPostgres.ceiling)} on PostgreSQL` : ' (PostgreSQL rows appear when the bench runs beside one: `pnpm bench` starts a throwaway cluster)'}. Start-up of the built \`exchange-sandbox\` to \`ready\` on an existing PGlite data folder (median of 5): ${Math.round(demoStartup)} ms holding the demo data, ${Math.round(startup)} ms holding what the PGlite rounds above wrote as well (about ${Math.round((pglite.intents.perSecond * seconds * writeRounds) / 1000)}k intents, which a start leaves in the store until a call names one, and the open orders of the write mix and the open positions of the margin fills, with their loans, which it reads). ${historySentence(history)} On the demo data and ${(busyFills / 1e6).toLocaleString('en')} million fills of its last ${Math.round(busyFills / 60_000)} minutes (one a millisecond), all in the day the market figures are made of (median of 3): ${(busy.ms / 1000).toFixed(1)} s to \`ready\`, ${Math.round(busy.peakMb)} MB resident at most. ${deepBookSentence(deep)} ${markMovedSentence(marked)}`,
      '',
      'Targets: with PGlite at least 1,000 writes/s and 60% of the ceiling with p99 at most 20 ms, and within 5% of that with 1,000 subscribers connected elsewhere; a margin order that fills at once at least 70% of the write mix; with PostgreSQL at least 3,000 writes/s; at least 10,000 reads/s; start-up at most 1.5 s, on the long history and on the busy day at most 1.5 s and 300 MB, the long history pages p99 at most 10 ms.',
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(historyDir, { recursive: true, force: true });
    await rm(busyDir, { recursive: true, force: true });
    await rm(deepDir, { recursive: true, force: true });
    await rm(marksDir, { recursive: true, force: true });
  }
}
