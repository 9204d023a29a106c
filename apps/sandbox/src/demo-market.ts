/**
 * What the sandbox starts with, as records of the state: the market (currencies, products,
 * loan book, a market maker's resting book), what a new user is given, and Quick Exchange's
 * assets and prices. `store/seed.ts` writes them to a new store; tests build a state in
 * memory from them.
 */
import { randomBytes } from 'node:crypto';
import { houseUserId } from './exchange/ledger.js';
import { placeOrder } from './exchange/orders.js';
import type { Asset, Price } from './state/partner-state.js';
import { type Currency, D, type LedgerEntry, type Product, type User } from './state/records.js';
import type { Sequencer } from './state/sequencer.js';

const currencies = [
  // code, name, type, symbol, precision, min withdrawal, withdrawal fee, min order, JPY rate
  ['BTC', 'Bitcoin', 'crypto', '₿', 8, '0.002', '0.0005', '0.0001', '9500000'],
  ['ETH', 'Ethereum', 'crypto', 'Ξ', 8, '0.02', '0.005', '0.001', '450000'],
  ['XRP', 'XRP', 'crypto', 'XRP', 6, '20', '0.15', '1', '80'],
  ['JPY', 'Japanese Yen', 'fiat', '¥', 0, '1000', '300', '1', '1'],
  ['USD', 'US Dollar', 'fiat', '$', 2, '10', '5', '0.01', '150'],
] as const;

export function demoCurrencies(): Currency[] {
  return currencies.map(
    ([code, name, currencyType, symbol, precision, minWithdrawal, fee, minOrder, rate]) => ({
      code,
      name,
      currencyType,
      symbol,
      depositable: true,
      withdrawable: true,
      assetsPrecision: precision,
      minimumWithdrawal: new D(minWithdrawal),
      withdrawalFee: new D(fee),
      minimumOrderQuantity: new D(minOrder),
      exchangeRate: new D(rate),
    }),
  );
}

/** A product to add: what is left out takes the defaults of `productRecord`. */
export interface NewProduct {
  id?: number;
  type?: string;
  code?: string;
  base: string;
  quote: string;
  tick?: string;
  /** Fee rates, as fractions of what a side receives (0.0015 is 0.15%); 0 unless told. */
  takerFee?: string;
  makerFee?: string;
  margin?: boolean;
  cfd?: boolean;
  perpetualEnabled?: boolean;
  perpetual?: boolean;
}

/** A new product as the state holds it: a cash currency pair without fees unless told. */
export function productRecord(id: number, product: NewProduct): Product {
  return {
    id,
    productType: product.type ?? 'CurrencyPair',
    code: product.code ?? 'CASH',
    baseCurrency: product.base,
    quotedCurrency: product.quote,
    takerFee: new D(product.takerFee ?? 0),
    makerFee: new D(product.makerFee ?? 0),
    tickSize: new D(product.tick ?? '1'),
    disabled: false,
    marginEnabled: product.margin ?? false,
    cfdEnabled: product.cfd ?? false,
    perpetualEnabled: product.perpetualEnabled ?? false,
    perpetual: product.perpetual ?? false,
  };
}

/** What the demo pairs charge a fill at fee tier 0: 0.15% to take, 0.05% to make. */
export const demoFees = { takerFee: '0.0015', makerFee: '0.0005' } as const;

export const demoProducts: readonly (NewProduct & { id: number })[] = [
  { id: 1, base: 'BTC', quote: 'JPY', tick: '1', margin: true, ...demoFees },
  { id: 2, base: 'ETH', quote: 'JPY', tick: '1', ...demoFees },
  { id: 3, base: 'ETH', quote: 'BTC', tick: '0.00001', ...demoFees },
  { id: 4, base: 'XRP', quote: 'JPY', tick: '0.001', ...demoFees },
  {
    id: 601,
    type: 'Perpetual',
    code: 'P-BTCUSD',
    base: 'BTC',
    quote: 'USD',
    tick: '0.5',
    perpetualEnabled: true,
    perpetual: true,
  },
];

/** The resting book the market maker offers: [product, side, price, quantity]. */
export const demoBook = [
  [1, 'sell', '9500001', '0.3'],
  [1, 'sell', '9501000', '2'],
  [1, 'sell', '9505000', '1.5'],
  [1, 'buy', '9499999', '0.5'],
  [1, 'buy', '9499000', '1.2'],
  [1, 'buy', '9490000', '3'],
  [2, 'sell', '450100', '5'],
  [2, 'sell', '451000', '12'],
  [2, 'buy', '449900', '4'],
  [2, 'buy', '449000', '10'],
  [3, 'sell', '0.04745', '8'],
  [3, 'buy', '0.04735', '6'],
  [4, 'sell', '80.125', '5000'],
  [4, 'buy', '79.875', '4000'],
  [601, 'sell', '65010', '2'],
  [601, 'buy', '64990', '2'],
] as const;

/** The market maker's resting book, placed as orders like any other. */
export async function placeDemoBook(sequencer: Sequencer, now: number): Promise<void> {
  await sequencer.run((journal) => {
    for (const [productId, side, price, quantity] of demoBook) {
      placeOrder(
        journal,
        marketMakerId,
        { order_type: 'limit', product_id: productId, side, price, quantity },
        now,
      );
    }
  });
}

/** The loan book: [currency, side, rate, amount]. */
export const demoLoanBook = [
  ['BTC', 'bid', '0.00020', '23.617'],
  ['BTC', 'bid', '0.00040', '50.64'],
  ['BTC', 'bid', '0.00060', '4.5'],
  ['ETH', 'bid', '0.00030', '120'],
  ['ETH', 'bid', '0.00050', '300.5'],
  ['ETH', 'ask', '0.00070', '40'],
] as const;

/** What a new user starts with in each currency. */
export const startingBalances: Readonly<Record<string, string>> = {
  BTC: '10',
  ETH: '100',
  XRP: '100000',
  JPY: '100000000',
  USD: '1000000',
};

/** The first order id a new store hands out, as migration 0001 starts `orders_id_seq`. */
export const firstOrderId = 2_157_474;

export const marketMakerId = 1000;
export const demoUserId = 1001;
/** A second demo user, so acting for someone else can be tried at the approval page. */
export const secondDemoUserId = 1002;

/** A new API token of a user, its id and secret drawn at random. */
export function newApiToken(userId: number): { tokenId: string; tokenSecret: string } {
  return {
    tokenId: `token-${userId}-${randomBytes(6).toString('hex')}`,
    tokenSecret: randomBytes(24).toString('base64url'),
  };
}

/** A sandbox user as the state holds it. */
export function userRecord(id: number, firstName = 'Sandbox user'): User {
  return {
    id,
    email: `user${id}@sandbox.invalid`,
    firstName,
    lastName: 'Sandbox',
    country: 'JP',
    currency: 'JPY',
    language: 'en',
    kycStatus: 'approved',
    appVendorId: id,
    affiliateCode: 'sandbox',
    emailConfirmedAtS: 1_700_000_000,
  };
}

/** The house, which fees are paid to: a user with no token and no starting balances. */
export const houseRecord = (): User => userRecord(houseUserId, 'House');

/** What the ledger names the starting balances. */
export const startingFunding: LedgerEntry['sourceAction'] = 'funding';

/**
 * Quick Exchange's assets and prices, as migration 0002 writes them into every store
 * (`store/reference-data.test.ts` holds the two equal).
 */
export function demoAssets(): Asset[] {
  const crypto = (code: string, precision: number, depositAddress: string): Asset => ({
    code,
    kind: 'crypto',
    precision,
    depositAddress,
  });
  const fiat = (code: string, precision: number): Asset => ({
    code,
    kind: 'fiat',
    precision,
    depositAddress: null,
  });
  const ethereum = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
  return [
    crypto('BTC', 8, 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh'),
    crypto('ETH', 8, ethereum),
    crypto('USDC', 2, ethereum),
    crypto('XRP', 6, 'rEb8TK3gBgk5auZkwc6sHnwrGVJH8DuaLh'),
    fiat('USD', 2),
    fiat('EUR', 2),
    fiat('SGD', 2),
    fiat('JPY', 0),
  ];
}

const prices = [
  ['BTC', 'USDC', '67500'],
  ['BTC', 'USD', '67450'],
  ['BTC', 'EUR', '62000'],
  ['BTC', 'SGD', '91000'],
  ['BTC', 'JPY', '9500000'],
  ['ETH', 'USDC', '3025'],
  ['ETH', 'USD', '3020'],
  ['ETH', 'EUR', '2780'],
  ['ETH', 'SGD', '4080'],
  ['ETH', 'JPY', '450000'],
  ['ETH', 'BTC', '0.0474'],
  ['XRP', 'USDC', '0.53'],
  ['XRP', 'USD', '0.53'],
  ['XRP', 'JPY', '80'],
  ['USDC', 'USD', '1'],
  ['USDC', 'EUR', '0.92'],
  ['USDC', 'SGD', '1.35'],
  ['USDC', 'JPY', '150'],
] as const;

export function demoPrices(): Price[] {
  return prices.map(([base, quote, price]) => ({ base, quote, price: new D(price) }));
}
