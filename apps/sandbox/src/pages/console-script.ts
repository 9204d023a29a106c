/**
 * The console's script, served as `/console.js` from the sandbox's own origin: it reads the
 * REST interface and follows the public channels with the browser's WebSocket, speaking the
 * Pusher protocol. Plain JavaScript, so the page needs no build; it holds no secret.
 */
import { eventsPath } from '@exchange-kit/contract/events';

export const consoleScript = `'use strict';
const eventsUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + ${JSON.stringify(eventsPath)};
const $ = (id) => document.getElementById(id);
const getJson = async (path) => {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(path + ': ' + response.status);
  return response.json();
};
const cells = (row, values) => {
  for (const value of values) row.insertCell().textContent = String(value);
  return row;
};
let socket;
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

function send(event, data) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ event, data }));
}

function follow() {
  for (const channel of channels) send('pusher:unsubscribe', { channel });
  const pair = product.currency_pair_code.toLowerCase();
  channels = ['executions_cash_' + pair, 'price_ladders_cash_' + pair + '_buy', 'price_ladders_cash_' + pair + '_sell'];
  for (const channel of channels) send('pusher:subscribe', { channel });
}

function connect() {
  socket = new WebSocket(eventsUrl);
  $('connection').textContent = 'connecting';
  socket.onmessage = (message) => {
    const frame = JSON.parse(message.data);
    const data = typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data;
    if (frame.event === 'pusher:connection_established') {
      $('connection').textContent = 'live';
      if (product) follow();
    } else if (frame.event === 'pusher:ping') {
      send('pusher:pong', {});
    } else if (frame.event === 'created' && frame.channel.startsWith('executions_cash_')) {
      showFill(data, true);
    } else if (frame.event === 'updated' && frame.channel.startsWith('price_ladders_cash_')) {
      showLevels(frame.channel.endsWith('_buy') ? 'buy' : 'sell', data);
    }
  };
  socket.onclose = () => {
    $('connection').textContent = 'reconnecting';
    // The page read over REST again once back: what it missed meanwhile is in the answers.
    setTimeout(() => { connect(); if (product) load(product.id); }, 1000);
  };
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
  connect();
  await load(select.value);
  document.body.dataset.ready = 'true';
}
start().catch((error) => { $('connection').textContent = String(error); });
`;
