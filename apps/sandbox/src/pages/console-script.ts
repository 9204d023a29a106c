/**
 * The console's book and fills, served as `/console.js` from the sandbox's own origin: it reads
 * the REST interface and follows the public channels (with `/console-common.js`'s connection).
 * Plain JavaScript, so the page needs no build; it holds no secret.
 */
export const consoleScript = `'use strict';
let product;
let channels = [];

function showLevels(side, levels) {
  const body = $(side + '-levels');
  body.replaceChildren();
  for (const [price, quantity] of levels) cells(body.insertRow(), [price, quantity]);
}

function showFill(fill, atTop) {
  const body = $('fills');
  const row = body.insertRow(atTop ? 0 : -1);
  row.dataset.id = String(fill.id);
  const time = new Date(Number(fill.created_at) * 1000).toISOString().slice(11, 19);
  cells(row, [fill.id, fill.taker_side, fill.price, fill.quantity, time]);
  while (body.rows.length > 50) body.deleteRow(-1);
}

const market = pusherConnection({
  status: (text) => { $('connection').textContent = text; },
  onOpen: () => { if (product) follow(); },
  onEvent: (event, channel, data) => {
    if (event === 'created' && channel.startsWith('executions_cash_')) {
      showFill(data, true);
    } else if (event === 'updated' && channel.startsWith('price_ladders_cash_')) {
      showLevels(channel.endsWith('_buy') ? 'buy' : 'sell', data);
    }
  },
  // The page reads over REST again once back: what it missed meanwhile is in the answers.
  onBack: () => { if (product) load(product.id); },
});

function follow() {
  for (const channel of channels) market.send('pusher:unsubscribe', { channel });
  const pair = product.currency_pair_code.toLowerCase();
  channels = ['executions_cash_' + pair, 'price_ladders_cash_' + pair + '_buy', 'price_ladders_cash_' + pair + '_sell'];
  for (const channel of channels) market.send('pusher:subscribe', { channel });
}

async function load(productId) {
  product = await getJson('/products/' + productId);
  const book = await getJson('/products/' + productId + '/price_levels?full=1');
  showLevels('buy', book.buy_price_levels);
  showLevels('sell', book.sell_price_levels);
  const fills = await getJson('/executions?product_id=' + productId + '&limit=50');
  $('fills').replaceChildren();
  for (const fill of fills.models) showFill(fill, false);
  follow();
}

async function start() {
  const products = await getJson('/products');
  const select = $('product');
  for (const entry of products) {
    select.add(new Option(entry.currency_pair_code + ' (' + entry.id + ')', entry.id));
  }
  select.addEventListener('change', () => load(select.value));
  await load(select.value);
  document.body.dataset.ready = 'true';
}
start().catch((error) => { $('connection').textContent = String(error); });
`;
