import { partner } from './partner.js';

const intent = await partner.intents.create({
  payout_settlement: { method: 'SERVICE_PARTNER_WALLET', currency: 'USDC', quantity: '49.90' },
  partner_order_id: `docs-${Date.now()}`,
  partner_tags: ['docs'],
});
console.log(`intent ${intent.id}, strategy ${intent.strategy}`);
// Hand intent.id to the page: it goes into the widget initialization or the hooks.
