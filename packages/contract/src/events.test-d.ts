import { expectTypeOf, it } from 'vitest';
import {
  type ChannelAddress,
  type ChannelPayloads,
  channelAddress,
  type ProtocolPayloads,
} from './events.js';
import type { Order, PriceLevel } from './exchange.js';

it('types each channel by its template and payload', () => {
  expectTypeOf(
    channelAddress('productCash', { pair: 'btcjpy', productId: 5 }),
  ).toEqualTypeOf<`product_cash_${string}_${string}`>();
  expectTypeOf<ChannelAddress<'userOrders'>>().toEqualTypeOf<`user_account_${string}_orders`>();
  expectTypeOf<ChannelPayloads['userOrders']>().toEqualTypeOf<Order>();
  expectTypeOf<ChannelPayloads['priceLadders']>().toEqualTypeOf<PriceLevel[]>();
  expectTypeOf<ProtocolPayloads['subscribe']>().toEqualTypeOf<{
    channel: string;
    auth?: string;
    channel_data?: string;
  }>();
  // @ts-expect-error every parameter of the template is required
  channelAddress('productCash', { pair: 'btcjpy' });
  // @ts-expect-error no channel has this name
  channelAddress('orders', {});
});
