/**
 * The console's user views, served as `/console-user.js`: a demo user's orders, positions,
 * balances, ledger and withdrawals, read through the console session (`console-api.ts`) and
 * followed on the user's private channels after a `quoine:auth_request` with a JWT the sandbox
 * issued for it. The page never holds the token's secret. With test control on, the balances
 * and withdrawals get buttons that credit a deposit and move a withdrawal, and the positions a
 * mark price to move.
 */
export const consoleUserScript = `'use strict';
let userId;
let privateChannels = [];
let authAttempts = 0;
const orders = new Map();
const accounts = new Map();
const userRead = (path) => getJson('/console/api/users/' + userId + '/exchange' + path);

function showOrders() {
  const newest = [...orders.values()].sort((a, b) => b.id - a.id).slice(0, 20);
  showRows('orders', newest, ['id', 'currency_pair_code', 'side', 'order_type', 'price', 'quantity', 'filled_quantity', 'status']);
}

function showAccounts() {
  const amount = () => $('deposit-amount').value;
  showRows('balances', [...accounts.values()], ['currency', 'balance', 'reserved_balance'], (account) =>
    testControl
      ? [['credit deposit', () => postJson('/test/deposits', { user_id: Number(userId), currency: account.currency, amount: amount() })]]
      : []);
}

async function readPositions() {
  const open = await userRead('/trades?status=open&limit=20');
  showRows('positions', open.models, ['id', 'currency_pair_code', 'side', 'quantity', 'open_price', 'open_pnl', 'pnl']);
}

async function readLedger() {
  const entries = await userRead('/transactions?limit=20');
  showRows('ledger', entries.models, ['id', 'currency', 'transaction_type', 'gross_amount', 'balance']);
}

async function readWithdrawals() {
  const [crypto, fiat] = await Promise.all([userRead('/crypto_withdrawals'), userRead('/withdrawals')]);
  const all = crypto.models.concat(fiat.models).sort((a, b) => b.id - a.id);
  // Only some moves post to the ledger, and so reach an account's channel: read them back here.
  const move = (withdrawal, state) => [state, async () => {
    await postJson('/test/withdrawals/' + withdrawal.id + '/state', { state });
    await readWithdrawals();
  }];
  showRows('withdrawals', all, ['id', 'currency', 'amount', 'state'], (withdrawal) =>
    testControl ? ['processing', 'processed', 'declined'].map((state) => move(withdrawal, state)) : []);
}

/** Positions, ledger and withdrawals are on no channel: read again when an event says they moved. */
let rereading;
function readDerived() {
  clearTimeout(rereading);
  rereading = setTimeout(() => Promise.all([readPositions(), readLedger(), readWithdrawals()]).catch(showError), 100);
}

async function loadUser() {
  const [listed, held] = await Promise.all([userRead('/orders?limit=20'), userRead('/accounts')]);
  orders.clear();
  for (const order of listed.models) orders.set(order.id, order);
  accounts.clear();
  for (const account of held.fiat_accounts.concat(held.crypto_accounts)) accounts.set(account.currency, account);
  showOrders();
  showAccounts();
  await Promise.all([readPositions(), readLedger(), readWithdrawals()]);
}

const userEvents = pusherConnection({
  status: (text) => { $('user-connection').textContent = text; },
  onOpen: () => authenticate().catch(showError),
  onEvent: (event, channel, data) => {
    if (event === 'quoine:auth_success') {
      authAttempts = 0;
      followUser().catch(showError);
    } else if (event === 'quoine:auth_failure') {
      // A JWT is good until the token signs anything else first: ask for another, a few times.
      if (++authAttempts < 4) authenticate().catch(showError);
      else $('user-connection').textContent = 'refused: ' + data.message;
    } else if (event === 'updated' && channel.endsWith('_orders')) {
      orders.set(data.id, data);
      showOrders();
      readDerived();
    } else if (event === 'updated' && channel.startsWith('user_')) {
      accounts.set(data.currency, data);
      showAccounts();
      readDerived();
    } else if (event === 'created') {
      readDerived();
    }
  },
  onBack: () => { if (userId) loadUser().catch(showError); },
});

async function authenticate() {
  if (!userId) return;
  const { jwt } = await postJson('/console/api/users/' + userId + '/realtime');
  userEvents.send('quoine:auth_request', { path: '/realtime', headers: { 'X-Service-Auth': jwt } });
}

async function followUser() {
  for (const channel of privateChannels) userEvents.send('pusher:unsubscribe', { channel });
  const products = await getJson('/products');
  const currencies = [...accounts.keys()].map((currency) => currency.toLowerCase());
  privateChannels = [...accounts.values()].map((account) => account.push_channel)
    .concat(currencies.map((currency) => 'user_account_' + currency + '_orders'))
    .concat(products.map((product) => 'user_executions_cash_' + product.currency_pair_code.toLowerCase()));
  for (const channel of privateChannels) userEvents.send('pusher:subscribe', { channel });
  $('user-connection').textContent = 'following user ' + userId;
}

async function pickUser(id) {
  userId = id;
  authAttempts = 0;
  await loadUser();
  await authenticate();
}

async function moveMark() {
  await postJson('/test/products/' + $('mark-product').value + '/mark_price', { price: $('mark-price').value });
  await readPositions();
}

async function startUser() {
  const session = await getJson('/console/api/session');
  testControl = session.test_control;
  const select = $('user');
  for (const user of session.users) select.add(new Option(user.user_id + ' (' + user.email + ')', user.user_id));
  select.addEventListener('change', () => pickUser(select.value).catch(showError));
  for (const element of document.querySelectorAll('.test-control')) element.hidden = !testControl;
  const products = await getJson('/products');
  for (const product of products) $('mark-product').add(new Option(product.currency_pair_code + ' (' + product.id + ')', product.id));
  $('move-mark').addEventListener('click', () => moveMark().catch(showError));
  await pickUser(select.value);
  document.body.dataset.userReady = 'true';
}
startUser().catch(showError);
`;
