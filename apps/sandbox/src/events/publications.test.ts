import { channelPayloadSchemas } from '@exchange-kit/contract/events/schemas';
import { describe, expect, it } from 'vitest';
import { shownLevels } from '../exchange/market.js';
import { memorySandbox } from '../testing/memory-sandbox.js';
import * as trading from '../testing/trading.js';
import { type Publication, publicationsOf } from './publications.js';

describe('the price ladder channels', () => {
  it('carry the best levels the book shows, not every level of a deep book', async () => {
    const sandbox = await memorySandbox();
    const product_id = await trading.freshProduct(sandbox);
    const sent: Publication[] = [];
    sandbox.sequencer.publisher = (journal) => {
      const publications = publicationsOf(journal, Date.now(), () => true);
      return () => sent.push(...publications);
    };
    const buyer = sandbox.addUser();
    for (let n = 0; n < shownLevels + 5; n++) {
      await trading.place(buyer.call, { product_id, price: String(1000 + n) });
    }
    const ladder = sent.filter((p) => /^price_ladders_cash_\w+_buy$/.test(p.channel)).at(-1);
    const levels = channelPayloadSchemas.priceLadders.parse(JSON.parse(ladder?.data ?? 'null'));
    expect(levels).toHaveLength(shownLevels);
    // The best first: the last order placed is the highest bid.
    expect(levels[0]?.[0]).toBe(String(1000 + shownLevels + 4));
  });
});
