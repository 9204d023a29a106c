import { client } from './client.js';

// A withdrawal holds its amount plus the currency's fee until the exchange sends it.
const held = await client.withdrawals.crypto.create({
  currency: 'BTC',
  address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  amount: '0.01',
});
console.log(
  `withdrawal ${held.id} ${held.state}: ${held.amount} BTC + ${held.withdrawal_fee} fee held`,
);

// While it is pending it can be cancelled, which frees what it held.
const cancelled = await client.withdrawals.crypto.cancel(held.id);
console.log(`withdrawal ${cancelled.id} ${cancelled.state}`);

// Paged lists read on with `iterate`: here every BTC withdrawal, newest first.
const states = new Map<string, number>();
for await (const withdrawal of client.withdrawals.crypto.iterate({ currency: 'BTC' })) {
  states.set(withdrawal.state, (states.get(withdrawal.state) ?? 0) + 1);
}
console.log(
  `BTC withdrawals so far: ${[...states].map(([state, n]) => `${n} ${state}`).join(', ')}`,
);
