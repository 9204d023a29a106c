import { restingBuy } from '../engine/adapter.js';
import { type BadInputCase, deriveBadInput, malformedJson } from '../engine/bad-input.js';
import { badInputOperations, profilesOf } from '../engine/catalog.js';
import { bodyOf, type CallOptions, isClientError } from '../engine/context.js';
import { Failure, type RecordedCall, SetupError } from '../engine/outcome.js';
import { operation, requestSchema } from '../engine/spec.js';
import { fundedCurrency } from './loan-bids.js';
import { example, partnerSession } from './partner.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { firstCrypto } from './withdrawals.js';

type Row = Record<string, unknown>;

const inputRequirements = [
  'INPUT-MALFORMED-JSON',
  'INPUT-MISSING-REQUIRED',
  'INPUT-WRONG-TYPE',
  'INPUT-UNKNOWN-ENUM',
  'INPUT-TOO-LONG',
  'INPUT-PATTERN',
  'INPUT-NEGATIVE-QUANTITY',
  'INPUT-UNKNOWN-FIELD',
];

/** One operation under bad input: a valid call to derive from, and how to see that nothing changed. */
export interface InputTarget {
  operationId: string;
  /**
   * A body it accepts holds funds the run cannot reach to give back (a loan bid or a
   * withdrawal of a currency a generated body names): bodies valid by the schema are not
   * generated for it, only the bad input derived from one the run knows.
   */
  holdsWhenAccepted?: boolean;
  /** The call without its body, and a valid body; a fresh one per case when it must be unique. */
  prepare(context: ScenarioContext): Promise<{
    call: Omit<CallOptions, 'body'>;
    base: (index: number) => Row;
    unchanged: () => Promise<string | undefined>;
  }>;
}

/** The ids a paged list holds (of `currency`, when given): what a refused create must not add to. */
async function listedIds(
  context: ScenarioContext,
  operationId: string,
  currency?: string,
): Promise<Set<string>> {
  const query = { ...(currency === undefined ? {} : { currency }), limit: '1000' };
  const listed = await context.caller.call(operationId, { query });
  if (listed.status !== 200)
    throw new SetupError(`${operationId} answered ${listed.status}`, listed);
  const rows = (bodyOf(listed).models as Row[] | undefined) ?? [];
  return new Set(rows.map((row) => String(row.id)));
}

const madeSince = (before: Set<string>, after: Set<string>, what: string) => {
  const made = [...after].filter((id) => !before.has(id));
  return made.length > 0 ? `${what} were created: ${made.join(', ')}` : undefined;
};

async function readOrder(context: ScenarioContext, id: string | number): Promise<Row> {
  const read = await context.caller.call('getOrder', { path: { order_id: String(id) } });
  if (read.status !== 200)
    throw new SetupError(`reading order ${id} back answered ${read.status}`, read);
  return bodyOf(read);
}

function sameOrder(before: Row, after: Row): string | undefined {
  for (const field of ['status', 'price', 'quantity', 'take_profit', 'stop_loss']) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) {
      return `${field} changed from ${JSON.stringify(before[field])} to ${JSON.stringify(after[field])}`;
    }
  }
  return undefined;
}

export const inputTargets: InputTarget[] = [
  {
    operationId: 'createOrder',
    async prepare(context) {
      const market = await context.market();
      const before = await listedIds(context, 'listOrders');
      return {
        call: {},
        base: () => ({
          order_type: 'limit',
          product_id: market.primary.id,
          side: 'buy',
          quantity: market.primary.quantity,
          price: market.primary.restingBuyPrice,
          client_order_id: context.clientOrderId(),
        }),
        unchanged: async () => madeSince(before, await listedIds(context, 'listOrders'), 'orders'),
      };
    },
  },
  {
    operationId: 'editOrder',
    async prepare(context) {
      const market = await context.market();
      const order = await context.liveOrder({});
      const before = await readOrder(context, order.id);
      return {
        call: { path: { order_id: String(order.id) } },
        base: () => ({ price: market.primary.restingBuyPrice, quantity: market.primary.quantity }),
        unchanged: async () => sameOrder(before, await readOrder(context, order.id)),
      };
    },
  },
  {
    operationId: 'cancelAllOrders',
    async prepare(context) {
      const market = await context.market();
      const order = await context.liveOrder({});
      const before = await readOrder(context, order.id);
      return {
        call: {},
        base: () => ({ product_id: market.primary.id, trading_type: 'spot', side: 'buy' }),
        unchanged: async () => sameOrder(before, await readOrder(context, order.id)),
      };
    },
  },
  {
    operationId: 'createIntent',
    async prepare(context) {
      const key = context.target.publicApiKey;
      return {
        call: { path: { public_api_key: key } },
        base: (index) => ({
          ...example('createIntent', 'paymentRequest'),
          public_api_key: key,
          partner_order_id: `${context.runId}-in-${index}`,
        }),
        // Intents cannot be listed: what the server did with a refused one cannot be read back.
        unchanged: async () => undefined,
      };
    },
  },
  {
    operationId: 'createLoanBid',
    holdsWhenAccepted: true,
    async prepare(context) {
      const currency = await fundedCurrency(context);
      const ids = () => listedIds(context, 'listLoanBids', currency);
      const before = await ids();
      return {
        call: {},
        base: () => ({ loan_bid: { currency, rate: '0.0001', quantity: '0.01' } }),
        unchanged: async () => madeSince(before, await ids(), 'loan bids'),
      };
    },
  },
  {
    operationId: 'createCryptoWithdrawal',
    holdsWhenAccepted: true,
    async prepare(context) {
      const { currency: crypto, listed } = await firstCrypto(context, 'withdrawable');
      if (!crypto) throw new SetupError('no crypto currency can be withdrawn', listed);
      const currency = String(crypto.currency);
      const ids = () => listedIds(context, 'listCryptoWithdrawals', currency);
      const before = await ids();
      return {
        call: {},
        base: () => ({
          crypto_withdrawal: {
            currency,
            address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
            amount: String(crypto.minimum_withdrawal),
          },
        }),
        unchanged: async () => madeSince(before, await ids(), 'withdrawals'),
      };
    },
  },
  {
    operationId: 'estimateFee',
    async prepare(context) {
      const { primary } = await context.market();
      return {
        call: {},
        base: () => restingBuy(primary),
        // An estimate changes nothing, refused or not.
        unchanged: async () => undefined,
      };
    },
  },
  {
    operationId: 'intentToTrade',
    async prepare(context) {
      const session = await partnerSession(context);
      const list = async () => {
        const listed = await context.caller.call('listPartnerTransactions', {
          path: { public_api_key: context.target.publicApiKey },
          query: { min_ts: String(context.startedAt) },
        });
        if (listed.status !== 200)
          throw new SetupError(`listing partner transactions answered ${listed.status}`, listed);
        const transactions =
          ((bodyOf(listed).payload as Row | undefined)?.transactions as Row[] | undefined) ?? [];
        return new Set(transactions.map((transaction) => String(transaction.transaction_id)));
      };
      const before = await list();
      return {
        call: { auth: { kind: 'session', session } },
        base: () => ({ ...example('intentToTrade', 'minimal'), session_id: session.sessionId }),
        unchanged: async () => madeSince(before, await list(), 'transactions'),
      };
    },
  },
];

function expect4xx(call: RecordedCall, description: string): void {
  if (isClientError(call.status)) return;
  throw new Failure(
    `${call.operationId} ${description}: answered ${call.status}${call.status >= 500 ? ' (a server error)' : ' (accepted)'}`,
    {
      received: `${call.status} ${call.responseText.slice(0, 200)}`,
      documented: '400 or 422 (a 4xx), never 5xx',
      call,
    },
  );
}

async function runTarget(context: ScenarioContext, target: InputTarget): Promise<void> {
  const { call, base, unchanged } = await target.prepare(context);
  const schema = requestSchema(target.operationId);
  const cases: BadInputCase[] = [
    {
      requirementId: 'INPUT-MALFORMED-JSON',
      pointer: '',
      description: 'with a body that is not JSON',
      body: undefined,
    },
    ...deriveBadInput(operation(target.operationId).api, schema, base(0)),
  ];
  const tested = new Set<string>();
  for (const [index, badCase] of cases.entries()) {
    const body =
      badCase.requirementId === 'INPUT-MALFORMED-JSON'
        ? undefined
        : withFreshIds(badCase.body as Row, base(index + 1), base(0));
    const answered = await context.caller.call(target.operationId, {
      ...call,
      ...(body === undefined ? { rawBody: malformedJson } : { body }),
    });
    tested.add(badCase.requirementId);
    await context.evidence.check(badCase.requirementId, async () => {
      expect4xx(answered, badCase.description);
      return `${target.operationId} ${badCase.description}: ${answered.status}`;
    });
  }
  const change = await unchanged();
  for (const requirementId of tested) {
    await context.evidence.check(requirementId, async () => {
      if (change)
        throw new Failure(`${target.operationId} under bad input changed the state: ${change}`, {
          documented: 'nothing changed',
        });
      return `${target.operationId}: nothing changed`;
    });
  }
}

/** Gives a case the unique ids of a fresh base body, unless the case is about that very field. */
export function withFreshIds(body: Row, fresh: Row, original: Row): Row {
  const copy = { ...body };
  for (const field of ['client_order_id', 'partner_order_id']) {
    if (field in fresh && copy[field] === original[field]) copy[field] = fresh[field];
  }
  return copy;
}

const badInput: Scenario = {
  name: 'bad input derived from the request schemas',
  profile: 'input',
  // "Nothing was created" is judged on the whole account's orders and transactions.
  exclusive: true,
  covers: inputRequirements,
  async run(context) {
    // A server is held only to the profiles it offers: the operations of the others are left out.
    for (const target of inputTargets) {
      if (!badInputOperations.includes(target.operationId)) continue;
      if (profilesOf([target.operationId]).every((profile) => context.profiles.has(profile)))
        await runTarget(context, target);
    }
  },
};

export const inputScenarios: Scenario[] = [badInput];
