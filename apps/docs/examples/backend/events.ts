import { createExchangeClient } from '@exchange-kit/exchange-client';
import { WebSocket } from 'ws';
import { credentials } from './client.js';

// Node 20 has no WebSocket of its own, so the client is given the `ws` one; browsers and
// Node 22 and later need no `WebSocket` option.
const trader = createExchangeClient({ ...credentials, events: { WebSocket } });

// A private channel: the client signs `/realtime` with the token, as it signs its calls.
const orders = trader.events.subscribe('userOrders', { currency: 'JPY' });
await orders.ready;

const placed = await trader.orders.create({
  order_type: 'limit',
  product_id: 1,
  side: 'buy',
  quantity: '0.001',
  price: '1000',
});
await trader.orders.cancel({ id: placed.id });

// Each change of the order arrives once and in order, its decimals as exact strings.
for await (const message of orders) {
  // After a reconnect, `gap` names the span that may be missing: read it back over REST.
  if (message.kind === 'gap') console.log(`missed ${message.since}..${message.until}?`);
  if (message.kind !== 'event' || message.data.id !== placed.id) continue;
  console.log(`order ${placed.id} ${message.data.status} at ${message.data.price}`);
  if (message.data.status === 'cancelled') break;
}
trader.events.close();
