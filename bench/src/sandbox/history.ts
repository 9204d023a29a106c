// Starts on a long history and on a busy day, and the pages read from that history.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addDemoFillHistory,
  addDemoLedgerHistory,
  addDemoOrderHistory,
  addDemoPositionHistory,
} from '@exchange-kit/sandbox/bench';
import { sign, type Token } from './load.js';
import { buildSandbox, measuredStart, medianStart, spawnSandbox } from './process.js';

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

/** Fills of the busy-day row: one a millisecond up to now, all of them in the last day. */
export const busyFills = 1_000_000;

/**
 * Starts (median of three) on the demo data and `busyFills` fills of its last minutes, whose
 * day the market figures are made of: read folded per second, not fill by fill. Each start
 * answers the product's figures.
 */
export async function busyDayStartup(dataDir: string): Promise<{ ms: number; peakMb: number }> {
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

/** The long-history start and its pages, as the sandbox part and the history part both say. */
export const historySentence = (history: HistoryStartup) =>
  `On the demo data and ${(historyOrders / 1e6).toLocaleString('en')} million more orders (cancelled ones, added in bulk), ${(historyFills / 1e6).toLocaleString('en')} million fills between them (one a minute), ${historyEntries.toLocaleString('en')} ledger entries and ${(historyPositions / 1e6).toLocaleString('en')} million closed margin positions with the loans they repaid, all of one user, which a start leaves in the store but the last day of fills (median of 3): ${(history.ms / 1000).toFixed(1)} s to \`ready\`, ${Math.round(history.peakMb)} MB resident at most; a page of 20 read from the store, p99 of ${pageReads} reads of each, one call at a time and the six reads in turn: ${history.balanceHistoryP99Ms.toFixed(1)} ms for \`balance_history\`, ${history.transactionsP99Ms.toFixed(1)} ms for \`transactions\`, ${history.ownExecutionsP99Ms.toFixed(1)} ms for \`executions/me\`, ${history.tradesP99Ms.toFixed(1)} ms for \`trades\` and ${history.loansP99Ms.toFixed(1)} ms for \`loans\` (pages from among the newest 100,000), beside ${history.memoryP99Ms.toFixed(1)} ms for a signed read answered from memory (\`accounts/balance\`), each after an untimed pass of the same reads.`;

/**
 * A start of the built `exchange-sandbox` on a data folder that also holds `historyOrders`
 * orders, `historyFills` fills, `historyEntries` ledger entries and `historyPositions` closed
 * positions with their loans (median of three): how long until \`ready\`,
 * the most the process held resident on the way (Linux's VmHWM), the memory a start on that
 * history needs, and the p99 of pages of that ledger read from the store.
 */
export async function historyStartup(dataDir: string): Promise<HistoryStartup> {
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
