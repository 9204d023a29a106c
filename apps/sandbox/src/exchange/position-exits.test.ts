import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { D } from '../state/records.js';
import { type MemorySandbox, memorySandbox } from '../testing/memory-sandbox.js';
import { freshProduct, getOrder, place } from '../testing/trading.js';
import { reachedBy } from './matching.js';
import { markExits, moveMarkPrice } from './position-exits.js';
import { adjustMargin, liquidatedAt } from './positions.js';
import { exitOrdersOf } from './trade-view.js';

let sandbox: MemorySandbox;

beforeAll(async () => {
  sandbox = await memorySandbox();
});

const opening = fc.record({
  side: fc.constantFrom('buy' as const, 'sell' as const),
  leverage: fc.constantFrom(1, 2, 4, 10, 25),
  quantity: fc.constantFrom('0.5', '1', '2'),
  funding: fc.constantFrom('JPY', 'BTC'),
  takeProfit: fc.option(fc.integer({ min: 1, max: 50 })),
  stopLoss: fc.option(fc.integer({ min: 1, max: 50 })),
});
type Opening = typeof opening extends fc.Arbitrary<infer T> ? T : never;

const mark = fc.integer({ min: 60, max: 140 }).map(String);
const step = fc.oneof(
  fc.record({ mark }),
  // A call refused after it added margin to a position and moved the mark: nothing it
  // closed stays closed, and the position is reached as it was before.
  fc.record({ refusedMark: mark, bolster: fc.nat() }),
  fc.record({ moveStop: fc.nat(), by: fc.integer({ min: -30, max: 30 }) }),
  fc.record({ adjust: fc.nat(), delta: fc.constantFrom('-5', '-1', '1', '5', '20') }),
);

interface Opened {
  call: ReturnType<MemorySandbox['addUser']>['call'];
  tradeId: number;
}

/** A margin position opened at 100 by a new user, filled by a spot counterpart. */
async function open(productId: number, spec: Opening): Promise<Opened> {
  const trader = sandbox.addUser();
  const counterpart = sandbox.addUser();
  const long = spec.side === 'buy';
  const order = await place(trader.call, {
    product_id: productId,
    side: spec.side,
    price: '100',
    quantity: spec.quantity,
    trading_type: 'margin',
    leverage_level: spec.leverage,
    funding_currency: spec.funding,
  });
  const away = (offset: number, up: boolean) => String(up ? 100 + offset : 100 - offset);
  const body = {
    ...(spec.takeProfit === null ? {} : { take_profit: away(spec.takeProfit, long) }),
    ...(spec.stopLoss === null ? {} : { stop_loss: away(spec.stopLoss, !long) }),
  };
  const tpsl = await trader.call('PUT', `/orders/${order.id}/update_tpsl`, { body });
  expect(tpsl.status).toBe(200);
  await place(counterpart.call, {
    product_id: productId,
    side: long ? 'sell' : 'buy',
    price: '100',
    quantity: spec.quantity,
  });
  const tradeId = (await getOrder(trader.call, order.id)).trade_id;
  if (typeof tradeId !== 'number') throw new Error('the margin order opened no position');
  return { call: trader.call, tradeId };
}

/** The ids of the open positions among `ids`, and those of them that `price` reaches. */
const reachedAt = (ids: number[], price: string) =>
  sandbox.sequencer.run(({ exchange }) => {
    const mark = new D(price);
    const open: number[] = [];
    const reached: number[] = [];
    for (const id of ids) {
      const position = exchange.positions.get(id);
      const product = position && exchange.products.get(position.productId);
      if (!position || !product || position.status !== 'open') continue;
      open.push(id);
      const exits = markExits(exchange, position);
      if (exits.some((order) => reachedBy(order, mark)) || liquidatedAt(position, product, mark)) {
        reached.push(id);
      }
    }
    return { open, reached };
  });

describe('closing at the mark among many positions', () => {
  it('closes exactly the open positions a mark reaches, whatever changed them before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opening, { minLength: 4, maxLength: 16 }),
        fc.array(step, { minLength: 5, maxLength: 30 }),
        async (openings, steps) => {
          const productId = await freshProduct(sandbox, { margin: true });
          const opened: Opened[] = [];
          for (const spec of openings) opened.push(await open(productId, spec));
          const ids = opened.map(({ tradeId }) => tradeId);
          for (const each of steps) {
            if ('mark' in each) {
              const before = await reachedAt(ids, each.mark);
              await sandbox.sequencer.run((journal) =>
                moveMarkPrice(journal, productId, new D(each.mark), sandbox.now()),
              );
              const after = await reachedAt(ids, each.mark);
              const closed = before.open.filter((id) => !after.open.includes(id));
              expect(closed).toEqual(before.reached);
            } else if ('refusedMark' in each) {
              const before = await reachedAt(ids, each.refusedMark);
              const refused = sandbox.sequencer.run((journal) => {
                const bolstered = journal.exchange.positions.get(
                  ids[each.bolster % ids.length] as number,
                );
                if (bolstered?.status === 'open') {
                  adjustMargin(journal, bolstered, bolstered.margin, sandbox.now());
                }
                moveMarkPrice(journal, productId, new D(each.refusedMark), sandbox.now());
                throw new Error('refused');
              });
              // Refused for want of balance for the margin, or at the end.
              await expect(refused).rejects.toThrow();
              expect((await reachedAt(ids, each.refusedMark)).open).toEqual(before.open);
            } else {
              const { call, tradeId } = opened[
                ('moveStop' in each ? each.moveStop : each.adjust) % opened.length
              ] as Opened;
              if ('adjust' in each) {
                await call('PUT', `/trades/${tradeId}/adjust_margin`, {
                  body: { delta: each.delta },
                });
              } else {
                const stop = await sandbox.sequencer.run(({ exchange }) => {
                  const position = exchange.positions.get(tradeId);
                  return (
                    position &&
                    exitOrdersOf(exchange, position).find((order) => order.orderType === 'stop')
                  );
                });
                if (stop) {
                  const price = stop.price.plus(each.by);
                  if (price.gt(0)) {
                    await call('PUT', `/orders/${stop.id}`, { body: { price: price.toFixed() } });
                  }
                }
              }
            }
          }
        },
      ),
      { seed: 31, numRuns: 60 },
    );
  });
});
