import { partner } from './partner.js';

// Every transaction of the partner since yesterday, page after page.
const since = Date.now() - 24 * 3600 * 1000;
let count = 0;
for await (const transaction of partner.transactions.iterate({ min_ts: since })) {
  count += 1;
  if (count <= 3) console.log(`${transaction.transaction_id}: ${transaction.status}`);
}
console.log(`${count} transactions since yesterday`);
