import {
  advanceSandboxClock,
  creditSandboxDeposit,
  denySandboxOAuthRequest,
  moveSandboxWithdrawal,
  type SandboxProcess,
  startSandboxProcess,
} from '@exchange-kit/sandbox/testing';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ClientOrderIdConflictError,
  createExchangeClient,
  type ExchangeClient,
  isValidationErrorOf,
  type Loan,
  NotFoundError,
  OAuthRequestDeniedError,
  OAuthRequestExpiredError,
  OAuthRequestPendingError,
  type OAuthRequestRefusedError,
  OrderNotLiveError,
  type PerCallOptions,
  RateLimitedError,
  TransportError,
  ValidationError,
} from './index.js';

// The real sandbox, in its own process, over real HTTP on loopback. Every answer is checked
// against the spec by the client itself (validation is on), so a drift fails these tests.
let sandbox: SandboxProcess;
let client: ExchangeClient;
const run = `it-${process.pid}-${Date.now().toString(36)}`;
/** The URL of every attempt, as sent. */
const calls: { url: string }[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  client = createExchangeClient({
    baseUrl: sandbox.exchangeUrl,
    tokenId: sandbox.tokenId,
    tokenSecret: sandbox.tokenSecret,
    hooks: { onRequest: ({ url }) => void calls.push({ url }) },
  });
}, 60_000);
afterAll(() => sandbox?.stop());

// A buy far below the book rests as a live order instead of filling.
const restingBuy = (clientOrderId: string, price = '9000000', options?: PerCallOptions) =>
  client.orders.create(
    {
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: 0.001,
      price,
      client_order_id: clientOrderId,
    },
    options,
  );

describe('exchange-client against the sandbox', () => {
  it('reads products, the order book, currencies and the loan book with exact decimals', async () => {
    const products = await client.products.list();
    expect(products.length).toBeGreaterThan(0);
    for (const product of products) expect(typeof product.taker_fee).toBe('string');
    const book = await client.products.priceLevels(1);
    const bids = book.buy_price_levels.map(([price]) => Number(price));
    expect(bids).toEqual([...bids].sort((a, b) => b - a));
    // The whole book begins with the levels the default shows.
    const whole = await client.products.allPriceLevels(1);
    expect(whole.buy_price_levels.slice(0, bids.length)).toEqual(book.buy_price_levels);
    expect(new URL(calls.at(-1)?.url ?? 'http://x').search).toBe('?full=1');
    expect((await client.currencies.list()).map((c) => c.currency)).toContain('BTC');
    const ladder = await client.loanBook.get('BTC');
    const rates = ladder.bids.map(([rate]) => Number(rate));
    expect(rates).toEqual([...rates].sort((a, b) => a - b));
    await expect(client.loanBook.get('btc')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('follows an order through edit, update_tpsl and cancel by client id, then refuses it as not live', async () => {
    const id = `${run} order/1`;
    const created = await restingBuy(id);
    expect(created).toMatchObject({
      status: 'live',
      client_order_id: id,
      quantity: '0.001',
      price: '9000000',
    });

    // On the product's tick of 1 and its base currency's step of 0.00000001.
    const edited = await client.orders.edit(
      { clientOrderId: id },
      { price: 9_000_101, quantity: 0.0015 },
    );
    expect(edited).toMatchObject({
      id: created.id,
      status: 'live',
      price: '9000101',
      quantity: '0.0015',
    });
    expect((await client.orders.get({ clientOrderId: id })).price).toBe('9000101');

    const tpsl = await client.orders.updateTpsl(
      { id: created.id },
      { take_profit: '9800000', stop_loss: '8500000' },
    );
    expect(tpsl).toMatchObject({ take_profit: '9800000', stop_loss: '8500000' });

    const cancelled = await client.orders.cancel({ clientOrderId: id });
    expect(cancelled.status).toBe('cancelled');
    expect((await client.orders.get({ id: created.id })).status).toBe('cancelled');

    await expect(client.orders.cancel({ clientOrderId: id })).rejects.toBeInstanceOf(
      OrderNotLiveError,
    );
    await expect(client.orders.edit({ id: created.id }, { price: '1' })).rejects.toBeInstanceOf(
      OrderNotLiveError,
    );
    await expect(
      client.orders.updateTpsl({ id: created.id }, { stop_loss: '1' }),
    ).rejects.toMatchObject({
      name: 'OrderNotLiveError',
      status: 404,
    });
  });

  it('cancel_all with a filter moves exactly the matching live orders', async () => {
    const buy = await restingBuy(`${run}-buy`);
    const sell = await client.orders.create({
      order_type: 'limit',
      product_id: 1,
      side: 'sell',
      quantity: '0.001',
      price: '9900000',
      client_order_id: `${run}-sell`,
    });
    const moved = await client.orders.cancelAll({ side: 'buy' });
    expect(moved.map((entry) => entry.id)).toContain(buy.id);
    expect(moved.map((entry) => entry.id)).not.toContain(sell.id);
    expect((await client.orders.get({ id: sell.id })).status).toBe('live');
    expect((await client.orders.get({ id: buy.id })).status).toBe('cancelled');
    await client.orders.cancel({ id: sell.id });
  });

  it('sends nothing for an order id that spells cancel_all, which the server would route', async () => {
    const buy = await restingBuy(`${run}-kept`);
    await expect(client.orders.edit({ id: 'cancel_all' }, {})).rejects.toThrow(TypeError);
    await expect(client.orders.cancel({ id: '..' })).rejects.toThrow(TypeError);
    expect((await client.orders.get({ id: buy.id })).status).toBe('live');
    await client.orders.cancel({ id: buy.id });
  });

  it('pages through the orders it placed', async () => {
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await restingBuy(`${run}-page-${n}`)).id);
    const seen: Array<number | string> = [];
    for await (const order of client.orders.iterate({ status: 'live', limit: 2 }))
      seen.push(order.id);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(new Set(seen).size).toBe(seen.length);
    await client.orders.cancelAll();
  });

  it('reads a fill it took in the public fills and in its own, with the order it filled', async () => {
    const [best] = (await client.products.priceLevels(1)).sell_price_levels;
    const order = await client.orders.create({
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.0001',
      price: best?.[0] ?? '0',
      client_order_id: `${run}-fill`,
    });
    expect(order.status).toBe('filled');
    const [mine] = (await client.executions.mine({ product_id: 1, with_details: 1, limit: 1 }))
      .models;
    expect(mine).toMatchObject({ my_side: 'buy', taker_side: 'buy', target: 'spot' });
    expect(mine).toMatchObject({ order_id: order.id, client_order_id: `${run}-fill` });
    const [newest] = (await client.executions.list({ product_id: 1, limit: 1 })).models;
    expect(newest?.id).toBe(mine?.id);
    const since = await client.executions.since({
      product_id: '1',
      timestamp: mine?.created_at ?? 0,
      limit: 1,
    });
    expect(since.map((fill) => fill.id)).toContain(mine?.id);
    const everyone = [];
    for await (const fill of client.executions.iterate({ product_id: 1, limit: 1 }))
      everyone.push(fill.id);
    expect(everyone.filter((id) => id === mine?.id)).toHaveLength(1);
    const own = [];
    for await (const fill of client.executions.iterateMine({ product_id: 1, limit: 1 }))
      own.push(fill.id);
    expect(own.filter((id) => id === mine?.id)).toHaveLength(1);
    // A fill between two orders of the caller's is two rows under one id: both are walked.
    const product = await client.products.get(1);
    const [ask] = (await client.products.priceLevels(1)).sell_price_levels;
    const inside = new Decimal(ask?.[0] ?? 0).minus(product.tick_size).toFixed();
    const selfTrade = {
      order_type: 'limit',
      product_id: 1,
      quantity: '0.0001',
      price: inside,
    } as const;
    await client.orders.create({ ...selfTrade, side: 'sell' });
    const crossed = await client.orders.create({ ...selfTrade, side: 'buy' });
    expect(crossed.status).toBe('filled');
    const sides = [];
    for await (const fill of client.executions.iterateMine({ product_id: 1, limit: 1 })) {
      if (sides.push(fill) === 2) break;
    }
    expect(sides.map((fill) => fill.my_side).sort()).toEqual(['buy', 'sell']);
    expect(sides[0]?.id).toBe(sides[1]?.id);
    const detailed = await client.orders.get({ clientOrderId: `${run}-fill`, withDetails: true });
    expect(detailed.executions?.map((fill) => fill.id)).toEqual([mine?.id]);
    expect((await client.orders.get({ id: order.id })).executions).toBeUndefined();
    const listed = await client.orders.list({ product_id: 1, with_details: 1, limit: 5 });
    const found = listed.models.find((each) => each.id === order.id);
    expect(found?.executions?.[0]).toMatchObject({ id: mine?.id, my_side: 'buy' });
  });

  it('reconciles a fill it took against its ledger, and says what holds its reserved yen', async () => {
    const [best] = (await client.products.priceLevels(1)).sell_price_levels;
    await client.orders.create({
      order_type: 'limit',
      product_id: 1,
      side: 'buy',
      quantity: '0.0001',
      price: best?.[0] ?? '0',
      client_order_id: `${run}-ledger`,
    });
    const [fee, trade] = await client.ledger.history({ currency: 'JPY', limit: 10 });
    expect(fee).toMatchObject({ source_action: 'trade_fee', source_object_type: 'Execution' });
    expect(trade).toMatchObject({
      source_action: 'trade',
      source_object_id: fee?.source_object_id,
    });
    const balances = await client.accounts.balances();
    // A spot fee is charged in the quote currency, after the trade it is on.
    expect(balances.find((account) => account.currency === 'JPY')?.balance).toBe(fee?.balance);
    const transactions = [];
    for await (const row of client.ledger.iterateTransactions({ currency: 'JPY', limit: 1 })) {
      transactions.push(row);
      if (transactions.length === 2) break;
    }
    expect(transactions.map((row) => row.transaction_type)).toEqual(['trade_fee', 'trade']);
    // Entries posted while a walk runs push the ones it read onto the next page: none twice.
    const walk = async (posting: () => Promise<void>) => {
      const ids: number[] = [];
      const rows = client.ledger.iterateTransactions({ currency: 'JPY', limit: 2 });
      for await (const row of rows) if (ids.push(row.id) === 1) await posting();
      return ids;
    };
    const before = await walk(async () => undefined);
    expect(before.length).toBeGreaterThan(2);
    const walked = await walk(async () => {
      for (const amount of ['1000', '2000']) {
        await creditSandboxDeposit(sandbox, { userId: 1001, currency: 'JPY', amount });
      }
    });
    expect(walked).toEqual(before);
    const resting = await restingBuy(`${run}-held`);
    const held = await client.accounts.reservedDetails('JPY');
    // Its value, 9000, and its fee at the higher rate, 0.15%.
    expect(held.details).toContainEqual({ holder_type: 'order', id: resting.id, amount: '9013.5' });
    expect((await client.accounts.mainAsset()).currency).toBe('JPY');
    expect((await client.accounts.fiat()).map((account) => account.currency)).toContain('JPY');
    // An account the caller has is answered as it stands; BTC is no fiat currency.
    expect(await client.accounts.openFiat('USD')).toMatchObject({
      currency: 'USD',
      currency_type: 'fiat',
    });
    const refused = await client.accounts.openFiat('BTC').catch((error: unknown) => error);
    expect(isValidationErrorOf(refused, 'createFiatAccount') && refused.fields).toEqual({
      currency: ['not_a_fiat_currency'],
    });
    expect((await client.accounts.crypto()).map((account) => account.currency)).toContain('BTC');
  });

  it('takes per-call options: an aborted signal stops a create before anything is placed', async () => {
    const id = `${run}-aborted`;
    const caller = new AbortController();
    caller.abort();
    const error = await client.orders
      .create(
        {
          order_type: 'limit',
          product_id: 1,
          side: 'buy',
          quantity: 0.001,
          price: '9000000',
          client_order_id: id,
        },
        { signal: caller.signal },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'aborted' });
    await expect(client.orders.get({ clientOrderId: id })).rejects.toBeInstanceOf(NotFoundError);
    // The same call without the signal goes through: the options were that call's only.
    expect((await restingBuy(id)).client_order_id).toBe(id);
    await client.orders.cancel({ clientOrderId: id }, { timeoutMs: 5_000, retry: false });
  });

  it('returns the order already placed when a create is sent again with its client_order_id', async () => {
    const id = `${run}-again`;
    const first = await restingBuy(id);
    // The same terms written another way: a number for the string, trailing zeros.
    const again = await client.orders.create({
      order_type: 'limit',
      product_id: '1',
      side: 'buy',
      quantity: '0.00100',
      price: 9_000_000,
      client_order_id: id,
    });
    expect(again).toMatchObject({ id: first.id, client_order_id: id, status: 'live' });
    // Still the one order after it is cancelled: a late retry gets it back as it now is.
    await client.orders.cancel({ id: first.id });
    expect(await restingBuy(id)).toMatchObject({ id: first.id, status: 'cancelled' });
  });

  it('refuses a create sent again after its order was edited, since the terms now differ', async () => {
    const id = `${run}-edited`;
    const first = await restingBuy(id);
    await client.orders.edit({ id: first.id }, { price: '8999000' });
    const error = await restingBuy(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientOrderIdConflictError);
    expect(error).toMatchObject({
      order: { id: first.id, price: '8999000' },
      differences: [{ field: 'price', existing: '8999000', requested: '9000000' }],
    });
    await client.orders.cancel({ id: first.id });
  });

  it('places exactly one order when a create timed out and is sent again', async () => {
    const id = `${run}-timeout`;
    // Whether or not the first attempt reached the sandbox before its 1 ms ran out, the
    // caller's answer to the timeout, sending again, must end with one order under the id.
    await restingBuy(id, '9000000', { timeoutMs: 1, retry: false }).catch((error: unknown) => {
      expect(error).toMatchObject({ name: 'TransportError', reason: 'timeout' });
    });
    const placed = await restingBuy(id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const mine = [];
    for await (const order of client.orders.iterate({ status: 'live' }))
      if (order.client_order_id === id) mine.push(order.id);
    expect(mine).toEqual([placed.id]);
    await client.orders.cancel({ id: placed.id });
  });

  it('refuses a create whose client_order_id holds another order, saying how they differ', async () => {
    const id = `${run}-conflict`;
    const first = await restingBuy(id);
    const error = await restingBuy(id, '9000001').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientOrderIdConflictError);
    const conflict = error as ClientOrderIdConflictError;
    expect(conflict).toMatchObject({
      clientOrderId: id,
      order: { id: first.id, price: '9000000' },
      differences: [{ field: 'price', existing: '9000000', requested: '9000001' }],
    });
    expect(conflict.message).toContain(`already used by order ${first.id}`);
    // The server's own answer stays reachable.
    expect(conflict.cause).toBeInstanceOf(ValidationError);
    expect((conflict.cause as ValidationError).fields).toEqual({
      client_order_id: ['already_used'],
    });
    await client.orders.cancel({ id: first.id });
  });

  it('gets a ValidationError naming the field for a negative quantity', async () => {
    const error = await client.orders
      .create({ order_type: 'limit', product_id: 1, side: 'buy', quantity: '-1', price: '1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).fields).join(' ')).toMatch(/quantity/);
    expect((error as Error).message).toMatch(/quantity/);
  });

  it('narrows a 422 to the operation it answered, its fields and codes as the table lists them', async () => {
    const id = `${run}-narrow`;
    const placed = await restingBuy(id);
    const error = await client.orders
      .edit({ id: placed.id }, { quantity: '-1' })
      .catch((e: unknown) => e);
    expect(isValidationErrorOf(error, 'editOrder')).toBe(true);
    expect(isValidationErrorOf(error, 'createOrder')).toBe(false);
    if (!isValidationErrorOf(error, 'editOrder')) return;
    expect(error.fields.quantity).toContain('must_be_positive');
    await client.orders.cancel({ clientOrderId: id });
  });

  it('is refused with an AuthenticationError when the secret is wrong', async () => {
    const wrong = createExchangeClient({
      baseUrl: sandbox.exchangeUrl,
      tokenId: sandbox.tokenId,
      tokenSecret: 'not-the-secret',
    });
    const error = await wrong.orders.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(String((error as Error).message)).not.toContain('not-the-secret');
    // One's own token: no OAuth request to suspect.
    expect((error as Error).message).not.toContain('OAuth');
  });

  it('acts for a user through an approved OAuth request', async () => {
    const request = await client.oauth.createRequest(`${run}-oauth`);
    expect(request.api_challenge_href).toBe(
      `${sandbox.exchangeUrl}/oauth/${request.oauth_request_private_id}/approve`,
    );
    const user = client.forUser({
      publicId: request.oauth_request_public_id,
      privateId: request.oauth_request_private_id,
    });
    // Not approved yet: a typed refusal worth waiting on, and still an AuthenticationError.
    const early = await user.context().catch((e: unknown) => e);
    expect(early).toBeInstanceOf(OAuthRequestPendingError);
    expect(early).toBeInstanceOf(AuthenticationError);
    expect((early as OAuthRequestPendingError).reason).toBe('pending');
    const pending = await client.oauth.getRequest(request.oauth_request_public_id);
    expect(pending).toMatchObject({ status: 'pending', decided_at: null });
    await client.oauth.approve(request.oauth_request_private_id);
    expect((await client.oauth.getRequest(request.oauth_request_public_id)).status).toBe(
      'approved',
    );
    const context = await user.context();
    expect(context.token_id).toBeTypeOf('string');
    const accounts = await user.accounts();
    expect(accounts.crypto_accounts.map((a) => a.currency)).toContain('BTC');
    for (const account of accounts.fiat_accounts)
      expect(account.balance).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('tells a denied OAuth request from a pending one and an expired one, by type', async () => {
    const denied = await client.oauth.createRequest(`${run}-denied`);
    await denySandboxOAuthRequest(sandbox, denied.oauth_request_public_id);
    const deniedUser = client.forUser({
      publicId: denied.oauth_request_public_id,
      privateId: denied.oauth_request_private_id,
    });
    const refusal = await deniedUser.accounts().catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OAuthRequestDeniedError);
    expect(refusal).not.toBeInstanceOf(OAuthRequestPendingError);
    expect((refusal as Error).message).toContain('the user denied the OAuth request');
    const state = await client.oauth.getRequest(denied.oauth_request_public_id);
    expect(state.status).toBe('denied');
    expect(state.decided_at).toBeTypeOf('number');

    const late = await client.oauth.createRequest(`${run}-late`);
    await advanceSandboxClock(sandbox, 11 * 60);
    const expired = await client
      .forUser({ publicId: late.oauth_request_public_id, privateId: late.oauth_request_private_id })
      .context()
      .catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(OAuthRequestExpiredError);
    expect((expired as OAuthRequestRefusedError).reason).toBe('expired');
    expect((await client.oauth.getRequest(late.oauth_request_public_id)).status).toBe('expired');
    // The denial stays a denial once its time has passed too.
    expect((await client.oauth.getRequest(denied.oauth_request_public_id)).status).toBe('denied');

    const unknown = await client.oauth
      .getRequest('00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
  });
});

describe('withdrawals and deposits against the sandbox', () => {
  const address = 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY';

  it('holds a crypto withdrawal, cancels it while pending, and names the state once it is not', async () => {
    const asked = { currency: 'XRP', address, amount: 25, memo_value: run.slice(0, 60) };
    const held = await client.withdrawals.crypto.create(asked);
    expect(held).toMatchObject({ state: 'pending', amount: '25', withdrawal_fee: '0.15' });
    const cancelled = await client.withdrawals.crypto.cancel(held.id);
    expect(cancelled.state).toBe('cancelled');
    const error = await client.withdrawals.crypto.cancel(held.id).catch((e: unknown) => e);
    expect(isValidationErrorOf(error, 'cancelCryptoWithdrawal') && error.fields).toEqual({
      state: ['cancelled'],
    });
  });

  it('follows a withdrawal the exchange processes, and pages through them with iterate', async () => {
    const ids: number[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(
        (await client.withdrawals.crypto.create({ currency: 'XRP', address, amount: '20' })).id,
      );
    }
    await moveSandboxWithdrawal(sandbox, ids[0] as number, 'processing');
    await moveSandboxWithdrawal(sandbox, ids[0] as number, 'processed');
    const seen: number[] = [];
    for await (const withdrawal of client.withdrawals.crypto.iterate({
      currency: 'XRP',
      limit: 1,
    })) {
      seen.push(withdrawal.id);
    }
    expect(seen.slice(0, 3)).toEqual([...ids].reverse());
    const processed = await client.withdrawals.crypto.list({ state: 'processed' });
    expect(processed.models.map((row) => row.id)).toContain(ids[0]);
    expect(await client.withdrawals.crypto.networks('XRP')).toEqual([
      expect.objectContaining({ network: 'XRP', withdrawal_fee: '0.15' }),
    ]);
  });

  it('refuses an amount under the minimum with a ValidationError naming it', async () => {
    const error = await client.withdrawals.crypto
      .create({ currency: 'XRP', address, amount: '1' })
      .catch((e: unknown) => e);
    expect(isValidationErrorOf(error, 'createCryptoWithdrawal') && error.fields).toEqual({
      amount: ['valid_amount'],
    });
  });

  it('withdraws fiat to the bank account the user has, and lists a credited deposit', async () => {
    const [bank] = await client.withdrawals.fiat.bankAccounts();
    const withdrawal = await client.withdrawals.fiat.create({
      currency: 'JPY',
      amount: 5000,
      bank_account_id: bank?.id ?? 0,
    });
    expect(withdrawal).toMatchObject({ state: 'pending', withdrawal_fee: '300' });
    const listed = [];
    for await (const row of client.withdrawals.fiat.iterate()) listed.push(row.id);
    expect(listed).toContain(withdrawal.id);
    // The demo user of the sandbox, whose token the client signs with.
    await creditSandboxDeposit(sandbox, { userId: 1001, currency: 'ETH', amount: '0.75' });
    const deposits = [];
    for await (const deposit of client.deposits.iterate({ currency: 'ETH' }))
      deposits.push(deposit);
    expect(deposits[0]).toMatchObject({ amount: '0.75', state: 'received' });
  });
});

describe('trades against the sandbox', () => {
  it('reads the trade a margin order opened, sets its exits, adds margin and closes it', async () => {
    const opening = await client.orders.create({
      order_type: 'market',
      product_id: 1,
      side: 'buy',
      quantity: 0.002,
      trading_type: 'margin',
      leverage_level: 2,
    });
    const [trade] = await client.trades.ofOrder(opening.id);
    if (!trade) throw new Error('the margin order opened no trade');
    const borrowed: Loan[] = [];
    for await (const loan of client.loans.iterate({ currency: 'JPY', limit: 1 })) {
      if (loan.status === 'open') borrowed.push(loan);
    }
    expect(borrowed.length).toBeGreaterThan(0);
    // Only a loan's lender chooses whether it is lent again: this one the caller borrowed.
    const choice = await client.loans
      .update(Number(borrowed[0]?.id), { fund_reloaned: false })
      .catch((error: unknown) => error);
    if (!isValidationErrorOf(choice, 'updateLoan')) throw choice;
    expect(choice.fields.fund_reloaned).toEqual(['lender_only']);
    expect(trade).toMatchObject({ id: opening.trade_id, status: 'open', side: 'long' });
    expect(trade.open_quantity).toBe('0.002');
    const listed: number[] = [];
    for await (const open of client.trades.iterate({ status: 'open', product_id: 1, limit: 1 })) {
      listed.push(open.id);
    }
    expect(listed).toContain(trade.id);
    const tick = new Decimal((await client.products.get(1)).tick_size);
    const stopLoss = new Decimal(trade.open_price).div(2).div(tick).floor().times(tick);
    const withExits = await client.trades.setExits(trade.id, { stop_loss: stopLoss });
    expect(withExits.stop_loss).toBe(stopLoss.toFixed());
    const margined = await client.trades.adjustMargin(trade.id, 100);
    expect(new Decimal(margined.margin_used).minus(trade.margin_used).toFixed()).toBe('100');
    const half = await client.trades.close(trade.id, { closed_quantity: 0.001 });
    expect(half).toMatchObject({ status: 'open', open_quantity: '0.001', close_quantity: '0.001' });
    const closed = await client.trades.closeAll({ side: 'long' });
    expect(closed.find((each) => each.id === trade.id)).toMatchObject({ status: 'closed' });
    const again = await client.trades.close(trade.id).catch((error: unknown) => error);
    if (!isValidationErrorOf(again, 'closeTrade')) throw again;
    expect(again.fields.trade_id).toEqual(['not_open']);
    await expect(client.trades.close(999_999_999)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('trading accounts against the sandbox', () => {
  it('lists the accounts, reads one and sets its leverage level', async () => {
    const accounts = await client.tradingAccounts.list();
    const account = accounts.find((each) => String(each.product_id) === '1');
    if (!account) throw new Error('no trading account for the margin product 1');
    expect(await client.tradingAccounts.get(account.id)).toMatchObject({
      id: account.id,
      funding_currency: 'JPY',
      pusher_channel: `trading_account_${account.id}`,
    });
    const set = await client.tradingAccounts.setLeverage(account.id, 3);
    expect(set.leverage_level).toBe(3);
    // Back to where it was, for the other calls of this file's sandbox.
    await client.tradingAccounts.setLeverage(account.id, account.leverage_level);
    await expect(client.tradingAccounts.get(account.id + 500_000)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('fees against the sandbox', () => {
  it('estimates the fee a fill then charges, every digit, from the rules it lists', async () => {
    const [best] = (await client.products.priceLevels(1)).sell_price_levels;
    const order = {
      product_id: 1,
      side: 'buy' as const,
      quantity: '0.00012345',
      price: best?.[0] ?? '0',
    };
    const estimate = await client.fees.estimate({ ...order, order_type: 'limit' } as const);
    await client.orders.create({ ...order, order_type: 'limit', side: 'buy' });
    const [fee] = await client.ledger.history({ source_action: 'trade_fee', limit: 10 });
    // Every digit: the debit's amount, written out as the estimate writes it.
    const charged = new Decimal(String(fee?.amount)).neg().toFixed();
    expect(estimate.fee_options.default).toEqual([
      { fee_type: 'trade_fee', amount: charged, currency: fee?.currency },
    ]);
    const rules = await client.fees.mine({ fee_type: 'trade_fee' });
    // Product 1 is the demo's BTC/JPY pair; a taker buy is charged its taker rate on the
    // value, in yen: one fill at the best offer's price.
    const rate = rules.find(
      ({ conditions }) =>
        conditions.currency_pair_code === 'BTCJPY' &&
        conditions.product_type === 'CurrencyPair' &&
        conditions.maker_taker === 'taker',
    )?.charge_value;
    const value = new Decimal(order.quantity).times(order.price);
    expect(value.times(String(rate)).toFixed()).toBe(charged);
    expect(fee?.currency).toBe('JPY');
    expect(await client.fees.schedule({ fee_type: 'trade_fee' })).toEqual(rules);
    expect(await client.fees.tier()).toMatchObject({ fee_tier: 0, in_currency: 'JPY' });
  });
});

describe('loan bids against the sandbox', () => {
  it('lends ETH with a bid held while live, pages through bids, and closes it', async () => {
    const before = await client.accounts.reservedDetails('ETH');
    const first = await client.loanBids.create({ currency: 'ETH', rate: '0.00035', quantity: 1.5 });
    const second = await client.loanBids.create({
      currency: 'ETH',
      rate: 0.0004,
      quantity: '0.25',
    });
    expect(first).toMatchObject({ status: 'live', rate: '0.00035', quantity: '1.5', side: 'bid' });
    const held = await client.accounts.reservedDetails('ETH');
    expect(held.details).toEqual(
      expect.arrayContaining([{ holder_type: 'loan_bid', id: first.id, amount: '1.5' }]),
    );
    const book = await client.loanBook.get('ETH');
    expect(book.bids).toContainEqual(['0.00035', '1.5']);
    const seen: number[] = [];
    for await (const bid of client.loanBids.iterate({ currency: 'ETH', limit: 1 })) {
      seen.push(bid.id);
    }
    expect(seen.slice(0, 2)).toEqual([second.id, first.id]);
    expect((await client.loanBids.close(first.id)).status).toBe('closed');
    await client.loanBids.close(second.id);
    const error = await client.loanBids.close(first.id).catch((e: unknown) => e);
    expect(isValidationErrorOf(error, 'closeLoanBid') && error.fields).toEqual({
      status: ['closed'],
    });
    expect((await client.accounts.reservedDetails('ETH')).reserved_balance).toBe(
      before.reserved_balance,
    );
    expect(await client.loans.list({ currency: 'ETH' })).toEqual({
      models: [],
      current_page: 1,
      total_pages: 0,
    });
  });
});

describe('exchange-client against a sandbox that limits calls as the service does', () => {
  let limited: SandboxProcess;

  beforeAll(async () => {
    limited = await startSandboxProcess(60_000, ['--rate-limit', '2/60']);
  }, 60_000);
  afterAll(() => limited?.stop());

  it('throws RateLimitedError with the wait the server names', async () => {
    const client = createExchangeClient({
      baseUrl: limited.exchangeUrl,
      tokenId: limited.tokenId,
      tokenSecret: limited.tokenSecret,
      retry: false,
    });
    await client.orders.list();
    await client.orders.list();
    const refused = await client.orders.list().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused).toMatchObject({ status: 429, retryAfter: 60 });
  });
});
