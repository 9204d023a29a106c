// One call of many rows (a deep book taken whole), and fills that move the mark price while
// many positions are open.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDeepOffers, addOpenPositions } from '@exchange-kit/sandbox/bench';
import { median, placeSigned } from './load.js';
import { buildSandbox, builtOn } from './process.js';

/** Offers of the deep-book row, each at a price of its own above the demo's asks. */
const deepOffers = 60_000;

/**
 * One order that takes a deep book whole: `deepOffers` offers placed in one call, then one
 * market buy of everything the ask side holds, each offer a fill of that one call. How long
 * the buy takes to answer, with its fills, their ledger entries and the orders stored.
 */
export async function deepBookTaken(dataDir: string): Promise<{ fills: number; ms: number }> {
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
export async function markMovedFills(dataDir: string): Promise<{ first: number; later: number }> {
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

export const markMovedSentence = ({ first, later }: { first: number; later: number }) =>
  `A margin fill that moves the mark price while ${openPositions.toLocaleString('en')} margin positions, half long and half short, are open on the product, one at a time: ${Math.round(first)} ms to answer the first after a start, which reads every open position for the prices that reach it, and ${later.toFixed(1)} ms for each one after it (median of 3), which reads only the positions the new mark reaches.`;

export const deepBookSentence = (deep: { fills: number; ms: number }) =>
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
