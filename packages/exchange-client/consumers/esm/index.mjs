import { createExchangeClient, OrderNotLiveError } from '@exchange-kit/exchange-client';
import { priceToPrecision } from '@exchange-kit/exchange-client/precision';
import { createPartnerClient } from '@exchange-kit/partner-client';

const client = createExchangeClient({
  baseUrl: process.env.BASE_URL,
  tokenId: 't',
  tokenSecret: 's',
});
const order = await client.orders.get({ clientOrderId: 'a b' });
const notLive = await client.orders
  .cancel({ id: 404 })
  .catch((error) => error instanceof OrderNotLiveError);
const partner = createPartnerClient({ partnersUrl: process.env.BASE_URL, publicApiKey: 'pk' });
console.log(
  JSON.stringify({
    price: order.price,
    notLive,
    partner: typeof partner.sessions.create,
    rounded: priceToPrecision({ tick_size: '0.5' }, 65010.1 + 0.2),
  }),
);
