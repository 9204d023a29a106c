// #region intent
import { createPartnerClient } from '@exchange-kit/partner-client';
import { env } from '../sandbox-env.js';

// On your server: the token secret signs intent creation and the transaction listing.
const partner = createPartnerClient({
  partnersUrl: env.partnersUrl,
  publicApiKey: env.publicApiKey,
  tokenId: env.tokenId,
  tokenSecret: env.tokenSecret,
});

const intent = await partner.intents.create({
  payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '49.90' },
  partner_order_id: `docs-${Date.now()}`,
  partner_tags: ['docs'],
});
console.log(`intent ${intent.id}, strategy ${intent.strategy}`);
// Hand intent.id to the page: it goes into the widget initialization or the hooks.
// #endregion intent

// #region list
// Every transaction of the partner since yesterday, page after page.
const since = Date.now() - 24 * 3600 * 1000;
let count = 0;
for await (const transaction of partner.transactions.iterate({ min_ts: since })) {
  count += 1;
  if (count <= 3) console.log(`${transaction.transaction_id}: ${transaction.status}`);
}
console.log(`${count} transactions since yesterday`);
// #endregion list
