import { operationTable } from '@exchange-kit/contract/partner';
import { type RequirementId, statesWith } from '@exchange-kit/contract/state-tables';
import type { SessionCredentials } from '@exchange-kit/core/auth';
import { bodyOf, expectStatus, isClientError } from '../engine/context.js';
import { Failure, fixtureFailed, type RecordedCall, SetupError, Skip } from '../engine/outcome.js';
import { requestExamples } from '../engine/spec.js';
import { expected } from './expected.js';
import type { Scenario, ScenarioContext } from './scenario.js';

type Row = Record<string, unknown>;

/** A request example of the spec, by name; the fixtures start from what the spec shows. */
export function example(operationId: string, name: string): Row {
  const value = requestExamples(operationId)[name];
  if (typeof value !== 'object' || value === null)
    throw new Error(`The spec has no example ${name} for ${operationId}`);
  return structuredClone(value) as Row;
}

const sessions = new WeakMap<ScenarioContext, Promise<SessionCredentials>>();

/** The run's user session, created once. */
export function partnerSession(context: ScenarioContext): Promise<SessionCredentials> {
  let session = sessions.get(context);
  if (!session) {
    session = newSession(context, "the run's user session");
    sessions.set(context, session);
  }
  return session;
}

/** A user session of its own, for what needs a second user. */
async function newSession(context: ScenarioContext, name: string): Promise<SessionCredentials> {
  const created = await context.caller.call('createSession', {
    body: {
      ...example('createSession', 'minimal'),
      public_api_key: context.target.publicApiKey,
    },
  });
  noteSuccess(context, created);
  if (created.status !== operationTable.createSession.status)
    throw fixtureFailed('creating a user session', created, 'partner-sessions');
  const payload = bodyOf(created).payload as Row | undefined;
  context.distinct('user session', payload?.session_id, name);
  return {
    sessionId: String(payload?.session_id),
    sessionSecret: String(payload?.session_secret),
  };
}

/** An intent from the spec's examples, with this run's partner fields. */
export async function createIntent(
  context: ScenarioContext,
  name: string,
  changes: Row,
): Promise<RecordedCall> {
  // The examples' expiry lies in the past; a fixture must be fulfillable unless it says when.
  const { expires_at: _, ...fromExample } = example('createIntent', name) as Row;
  const body: Row = {
    ...fromExample,
    public_api_key: context.target.publicApiKey,
    ...changes,
  };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  const created = await context.caller.call('createIntent', {
    path: { public_api_key: context.target.publicApiKey },
    body,
  });
  noteSuccess(context, created);
  if (created.status === operationTable.createIntent.status) {
    const payload = bodyOf(created).payload as Row | undefined;
    context.distinct('intent', payload?.id, `intent ${String(body.partner_order_id)}`);
  }
  return created;
}

/** Every successful call is evidence for the status table's row of successes. */
function noteSuccess(context: ScenarioContext, call: RecordedCall): void {
  context.evidence.noteStatus('STATUS-200-SUCCESS', call, expected('STATUS-200-SUCCESS').status);
}

function noteTransaction(context: ScenarioContext, call: RecordedCall, name: string): void {
  const payload = bodyOf(call).payload as Row | undefined;
  context.distinct('transaction', payload?.transaction_id, name);
}

function payloadOf(call: RecordedCall): Row {
  const payload = bodyOf(call).payload;
  if (typeof payload !== 'object' || payload === null) {
    throw new Failure(`${call.operationId} answered no payload object`, {
      received: call.responseText.slice(0, 300),
      call,
    });
  }
  return payload as Row;
}

function expectPayload(
  call: RecordedCall,
  field: string,
  expected: unknown,
  documented: string,
): void {
  const value = payloadOf(call)[field];
  if (value !== expected) {
    throw new Failure(
      `${call.operationId}: payload.${field} is ${JSON.stringify(value)}, not ${JSON.stringify(expected)}`,
      {
        received: `payload.${field}: ${JSON.stringify(value)}`,
        documented,
        call,
      },
    );
  }
}

const intentDefault: Scenario = {
  name: 'create a session and an intent without strategy',
  profile: 'partner-sessions',
  covers: ['INTENT-STRATEGY-DEFAULT', 'STATUS-200-SUCCESS'],
  async run(context) {
    await partnerSession(context);
    const created = await createIntent(context, 'paymentRequest', {
      partner_order_id: `${context.runId}-default`,
      strategy: undefined,
    });
    const { status, next } = expected('INTENT-STRATEGY-DEFAULT');
    await context.evidence.check('INTENT-STRATEGY-DEFAULT', async () => {
      expectStatus(created, status, `status ${status} and the intent`);
      expectPayload(created, 'strategy', next, `the intent is created with strategy ${next}`);
      return `an intent created without strategy is ${next}`;
    });
  },
};

/**
 * The step the state names next: a method set through /settlement/method, or the missing
 * parameter supplied through /settlement/parameters (answered as the spec bundledDocuments).
 */
async function moveOn(
  context: ScenarioContext,
  requirementId: RequirementId,
  payload: Row,
  session: SessionCredentials,
): Promise<void> {
  const auth = { kind: 'session' as const, session };
  if (requirementId === 'QE-TRADE-NO-METHOD') {
    const set = await context.caller.call('setSettlementMethod', {
      body: {
        ...example('setSettlementMethod', 'funding'),
        transaction_id: payload.transaction_id,
      },
      auth,
    });
    const { status } = operationTable.setSettlementMethod;
    expectStatus(set, status, `a method can be set via /settlement/method (${status})`);
  }
  if (requirementId === 'QE-TRADE-PARAMETER-MISSING') {
    const funding = payload.funding_settlement as Row | undefined;
    const supplied = await context.caller.call('setSettlementParameters', {
      body: {
        ...example('setSettlementParameters', 'default'),
        settlement_instruction_id: funding?.settlement_instruction_id,
      },
      auth,
    });
    const { status } = operationTable.setSettlementParameters;
    expectStatus(
      supplied,
      status,
      `the missing parameter can be supplied via /settlement/parameters (${status})`,
    );
  }
}

const trades: Array<{ requirementId: RequirementId; example: string }> = [
  { requirementId: 'QE-TRADE-NO-METHOD', example: 'minimal' },
  { requirementId: 'QE-TRADE-BOTH-METHODS', example: 'full' },
  { requirementId: 'QE-TRADE-PARAMETER-MISSING', example: 'missingSignedTransaction' },
];

const tradeStates: Scenario = {
  name: 'intent_to_trade with no method, both methods, and a parameter missing',
  profile: 'partner-transactions',
  requires: ['partner-sessions'],
  covers: [...trades.map((trade) => trade.requirementId), 'STATUS-202-TRANSACTION-CREATED'],
  async run(context) {
    const session = await partnerSession(context);
    for (const [index, trade] of trades.entries()) {
      const body: Row = {
        ...example('intentToTrade', trade.example),
        session_id: session.sessionId,
      };
      // A quote id of the spec's example names no quote of this server: a snapshot quote is taken instead.
      delete body.quote_id;
      delete body.quantity_2;
      if ('client_ref' in body) body.client_ref = `${context.runId}-trade-${index}`;
      const created = await context.caller.call('intentToTrade', {
        body,
        auth: { kind: 'session', session },
      });
      context.evidence.noteStatus(
        'STATUS-202-TRANSACTION-CREATED',
        created,
        expected('STATUS-202-TRANSACTION-CREATED').status,
      );
      if (created.status === operationTable.intentToTrade.status)
        noteTransaction(context, created, `transaction of ${trade.requirementId}`);
      const { status, next } = expected(trade.requirementId);
      await context.evidence.check(trade.requirementId, async () => {
        expectStatus(created, status, `${status} and a transaction in ${next}`);
        expectPayload(created, 'status', next, `next state ${next}`);
        const payload = payloadOf(created);
        if (
          trade.requirementId === 'QE-TRADE-BOTH-METHODS' &&
          !(payload.funding_settlement && payload.payout_settlement)
        ) {
          throw new Failure('both methods were supplied but the response lacks an instruction', {
            received: `funding_settlement ${payload.funding_settlement ? 'present' : 'absent'}, payout_settlement ${payload.payout_settlement ? 'present' : 'absent'}`,
            documented: 'both instructions returned',
            call: created,
          });
        }
        if (trade.requirementId === 'QE-TRADE-PARAMETER-MISSING') {
          const required = [payload.funding_settlement, payload.payout_settlement].some(
            (instruction) =>
              Object.keys(
                ((instruction as Row | undefined)?.required_input_parameters as Row | undefined) ??
                  {},
              ).length > 0,
          );
          if (!required) {
            throw new Failure('no instruction lists a required input parameter', {
              documented: 'instructions list what is required',
              call: created,
            });
          }
        }
        const read = await context.caller.call('getTransactionStatus', {
          path: { transaction_id: String(payload.transaction_id) },
          auth: { kind: 'session', session },
        });
        expectStatus(read, operationTable.getTransactionStatus.status, 'the transaction read back');
        expectPayload(read, 'status', next, `read back in ${next}`);
        await moveOn(context, trade.requirementId, payload, session);
        return `${status}, ${next}, read back`;
      });
    }
  },
};

async function trade(
  context: ScenarioContext,
  session: SessionCredentials,
  intentId: string,
): Promise<RecordedCall> {
  const body = {
    ...example('intentToTrade', 'fromIntent'),
    session_id: session.sessionId,
    intent_id: intentId,
  };
  return context.caller.call('intentToTrade', { body, auth: { kind: 'session', session } });
}

const intentStrategies: Scenario = {
  name: 'fulfil ONE_TO_ONE_ATTEMPTED and ONE_TO_MANY intents',
  profile: 'partner-transactions',
  requires: ['partner-sessions'],
  covers: ['INTENT-ONE-TO-ONE-CONSUMED', 'INTENT-ONE-TO-MANY-REUSABLE', 'PARTNER-LIST-FILTERS'],
  async run(context) {
    const session = await partnerSession(context);
    const once = await createIntent(context, 'reusable', {
      strategy: undefined,
      partner_order_id: `${context.runId}-once`,
    });
    if (once.status !== operationTable.createIntent.status)
      throw new SetupError(`creating an intent answered ${once.status}`, once);
    const onceId = String(payloadOf(once).id);
    const first = await trade(context, session, onceId);
    const second = await trade(context, session, onceId);
    const created = expected('STATUS-202-TRANSACTION-CREATED').status;
    const consumed = expected('INTENT-ONE-TO-ONE-CONSUMED').status;
    await context.evidence.check('INTENT-ONE-TO-ONE-CONSUMED', async () => {
      expectStatus(first, created, `the first attempt creates a transaction (${created})`);
      expectStatus(second, consumed, `the second attempt is refused with ${consumed}`);
      return `first attempt ${created}, second ${consumed}`;
    });

    const partner = {
      partner_order_id: `${context.runId}-many`,
      partner_ref: `${context.runId}-ref`,
      partner_tags: [context.runId, 'conformance'],
    };
    const many = await createIntent(context, 'reusable', { strategy: 'ONE_TO_MANY', ...partner });
    if (many.status !== operationTable.createIntent.status)
      throw new SetupError(`creating an intent answered ${many.status}`, many);
    const manyId = String(payloadOf(many).id);
    const attempts = [await trade(context, session, manyId), await trade(context, session, manyId)];
    const reused = expected('INTENT-ONE-TO-MANY-REUSABLE').status;
    await context.evidence.check('INTENT-ONE-TO-MANY-REUSABLE', async () => {
      for (const attempt of attempts)
        expectStatus(attempt, reused, `every attempt creates a transaction (${reused})`);
      const listed = await context.caller.call('listPartnerTransactions', {
        path: { public_api_key: context.target.publicApiKey },
        query: { intent_id: manyId },
      });
      expectStatus(
        listed,
        operationTable.listPartnerTransactions.status,
        'the partner transaction listing',
      );
      const transactions = (payloadOf(listed).transactions as Row[] | undefined) ?? [];
      const ids = new Set(attempts.map((attempt) => String(payloadOf(attempt).transaction_id)));
      const found = transactions.filter((transaction) =>
        ids.has(String(transaction.transaction_id)),
      );
      if (found.length !== ids.size) {
        throw new Failure(
          `the listing by intent_id shows ${found.length} of the ${ids.size} transactions`,
          {
            received: `listed: ${transactions.map((t) => t.transaction_id).join(', ') || 'none'}`,
            documented: 'every attempt creates a transaction of the intent',
            call: listed,
          },
        );
      }
      for (const transaction of found) {
        for (const [field, value] of Object.entries(partner)) {
          if (JSON.stringify(transaction[field]) !== JSON.stringify(value)) {
            throw new Failure(
              `transaction ${String(transaction.transaction_id)} carries ${field} ${JSON.stringify(transaction[field])}`,
              {
                received: `${field}: ${JSON.stringify(transaction[field])}`,
                documented: `${field}: ${JSON.stringify(value)} (copied from the intent)`,
                call: listed,
              },
            );
          }
        }
      }
      return `${found.length} transactions, each with the intent's partner fields`;
    });
    await context.evidence.check(listFilters, () => checkListFilters(context, attempts));
  },
};

const listFilters = 'PARTNER-LIST-FILTERS';

/**
 * The partner's transactions listed by the status of one made here and by its own creation
 * time as both bounds (inclusive): each lists it, and only transactions of that status or
 * time; `selection.count` is the number listed.
 */
async function checkListFilters(context: ScenarioContext, attempts: RecordedCall[]) {
  const made = attempts.map(payloadOf).find((payload) => payload.transaction_id !== undefined);
  if (!made) throw new Skip('no transaction was made to list');
  const id = String(made.transaction_id);
  // As the run's own transactions list it: its created_at and its status now.
  const run = await context.caller.call('listPartnerTransactions', {
    path: { public_api_key: context.target.publicApiKey },
    query: { min_ts: String(context.startedAt) },
  });
  expectStatus(run, operationTable.listPartnerTransactions.status);
  const shown = ((payloadOf(run).transactions as Row[] | undefined) ?? []).find(
    (row) => String(row.transaction_id) === id,
  );
  if (!shown) {
    throw new Failure(`transaction ${id}, made in this run, is not listed from its start on`, {
      received: run.responseText.slice(0, 300),
      documented: `transaction ${id} among those created at or after min_ts ${context.startedAt}`,
      call: run,
    });
  }
  const at = String(shown.created_at);
  // A status it is not in, for a list that must leave it out.
  const other = statesWith('transaction', 'terminal').find((state) => state !== shown.status);
  const since = String(context.startedAt);
  const filters: [string, Record<string, string>, (row: Row) => boolean][] = [
    ['status', { status: String(shown.status) }, (row) => row.status === shown.status],
    ['min_ts and max_ts', { min_ts: at, max_ts: at }, (row) => String(row.created_at) === at],
    ...(other === undefined
      ? []
      : [
          [
            'another status',
            { status: other, min_ts: since },
            (row: Row) => row.status === other,
          ] satisfies [string, Record<string, string>, (row: Row) => boolean],
        ]),
  ];
  for (const [name, query, picks] of filters) {
    const listed = await context.caller.call('listPartnerTransactions', {
      path: { public_api_key: context.target.publicApiKey },
      query,
    });
    expectStatus(listed, operationTable.listPartnerTransactions.status);
    const payload = payloadOf(listed);
    const rows = (payload.transactions as Row[] | undefined) ?? [];
    const stray = rows.find((row) => !picks(row));
    // Listed where it belongs, and only there.
    const listedIt = rows.some((row) => String(row.transaction_id) === id) === picks(shown);
    const count = (payload.selection as Row | undefined)?.count;
    if (stray || !listedIt || Number(count) !== rows.length) {
      throw new Failure(`the transactions listed by ${name} (${new URLSearchParams(query)})`, {
        received: stray
          ? `transaction ${String(stray.transaction_id)}, ${String(stray.status)} at ${String(stray.created_at)}`
          : !listedIt
            ? `transaction ${id} ${picks(shown) ? 'left out' : 'listed'}`
            : `selection.count ${String(count)} for ${rows.length} transactions`,
        documented: `transaction ${id} among those the filter names alone (bounds inclusive), selection.count the number listed`,
        call: listed,
      });
    }
  }
  return `transaction ${id} listed by its status and by its created_at as both bounds, count as listed`;
}

const intentExpired = 'INTENT-EXPIRED-REFUSED';

/** The refusal names `field` as expired. */
function expectExpired(call: RecordedCall, field: string, what: string): void {
  const errors = (bodyOf(call).errors ?? {}) as Row;
  const named = errors[field] ?? (errors.config as Row | undefined)?.[field.replace('config.', '')];
  if (call.status !== 422 || !Array.isArray(named) || !named.includes('expired')) {
    throw new Failure(`${what} answered ${call.status}`, {
      received: call.responseText.slice(0, 300),
      documented: `422 naming ${field} expired`,
      call,
    });
  }
}

/**
 * An intent that expires a minute after it is made, by the server's clock: a session naming
 * it is created; the clock a day on, a session naming it and intent_to_trade with it are each
 * refused naming it expired, and no transaction of it is made.
 */
async function checkIntentExpired(context: ScenarioContext): Promise<string> {
  const session = await partnerSession(context);
  const probe = await createIntent(context, 'reusable', {
    strategy: 'ONE_TO_MANY',
    partner_order_id: `${context.runId}-clock`,
  });
  expectStatus(probe, operationTable.createIntent.status);
  const expiresAt = Number(payloadOf(probe).created_at) + 60_000;
  const made = await createIntent(context, 'reusable', {
    strategy: 'ONE_TO_MANY',
    partner_order_id: `${context.runId}-expiring`,
    expires_at: expiresAt,
  });
  expectStatus(made, operationTable.createIntent.status);
  const intentId = String(payloadOf(made).id);
  const named = () =>
    context.caller.call('createSession', {
      body: {
        ...example('createSession', 'minimal'),
        public_api_key: context.target.publicApiKey,
        config: {
          public_api_key: context.target.publicApiKey,
          config_version: '1.2',
          intent_id: intentId,
        },
      },
    });
  expectStatus(await named(), operationTable.createSession.status, 'a session naming the intent');
  await context.adapter.advanceClock(context.adapterContext, 86_400);
  expectExpired(await named(), 'config.intent_id', 'a session naming the expired intent');
  expectExpired(await trade(context, session, intentId), 'intent_id', 'intent_to_trade with it');
  const listed = await context.caller.call('listPartnerTransactions', {
    path: { public_api_key: context.target.publicApiKey },
    query: { intent_id: intentId },
  });
  expectStatus(listed, operationTable.listPartnerTransactions.status);
  const transactions = (payloadOf(listed).transactions as Row[] | undefined) ?? [];
  if (transactions.length > 0) {
    throw new Failure(`the expired intent ${intentId} has ${transactions.length} transaction(s)`, {
      received: listed.responseText.slice(0, 300),
      documented: 'none: an expired intent is fulfilled by no transaction',
      call: listed,
    });
  }
  return `intent ${intentId}, expired a day ago, refused for a session and for intent_to_trade`;
}

const intentExpiry: Scenario = {
  name: 'an intent past its expires_at',
  profile: 'partner-transactions',
  requires: ['partner-sessions'],
  covers: [intentExpired],
  needs: [{ step: 'advanceClock' }],
  // It moves the exchange's clock a day on.
  exclusive: true,
  run: (context) => context.evidence.check(intentExpired, () => checkIntentExpired(context)).then(),
};

const clientRefOtherSessionId = 'AUTH-CLIENT-REF-OTHER-SESSION';

/**
 * A client_ref is easy to guess (a checkout id): answered across sessions, it would hand one
 * user's transaction, and the instructions to settle it, to another.
 */
const clientRefPerSession: Scenario = {
  name: "intent_to_trade naming another session's client_ref",
  profile: 'partner-transactions',
  requires: ['partner-sessions'],
  covers: [clientRefOtherSessionId],
  async run(context) {
    const owner = await partnerSession(context);
    const other = await newSession(context, 'a second user session');
    const clientRef = `${context.runId}-shared-ref`;
    const order = (session: SessionCredentials) =>
      context.caller.call('intentToTrade', {
        body: {
          ...example('intentToTrade', 'minimal'),
          session_id: session.sessionId,
          client_ref: clientRef,
        },
        auth: { kind: 'session', session },
      });
    const first = await order(owner);
    if (first.status !== operationTable.intentToTrade.status)
      throw new SetupError(`creating a transaction answered ${first.status}`, first);
    const transactionId = String(payloadOf(first).transaction_id);
    const again = await order(other);
    await context.evidence.check(clientRefOtherSessionId, async () => {
      const documented = '4xx naming client_ref, showing nothing of the transaction it names';
      expectStatus(again, isClientError, documented);
      if (again.responseText.includes(transactionId)) {
        throw new Failure(`another session naming the client_ref was shown ${transactionId}`, {
          received: again.responseText.slice(0, 300),
          documented,
          call: again,
        });
      }
      return `${again.status}, nothing of the transaction shown`;
    });
  },
};

const quantity2QuoteId = 'INPUT-QUANTITY-2-NOT-QUOTED';

/** A price the user names is never taken: quantity_2 is the quote's figure, or it is refused. */
const quantity2FromQuote: Scenario = {
  name: 'intent_to_trade with a quantity_2 no quote gave',
  profile: 'partner-transactions',
  requires: ['partner-sessions'],
  covers: [quantity2QuoteId],
  async run(context) {
    const session = await partnerSession(context);
    const named = await context.caller.call('intentToTrade', {
      body: {
        ...example('intentToTrade', 'minimal'),
        session_id: session.sessionId,
        client_ref: `${context.runId}-named-price`,
        quantity_2: '1',
        quote_id: `${context.runId}-no-such-quote`,
      },
      auth: { kind: 'session', session },
    });
    // Accepted, it is a transaction of its own: one with an earlier one's id means no state.
    if (named.status === operationTable.intentToTrade.status)
      noteTransaction(context, named, 'transaction with a quantity_2 no quote gave');
    await context.evidence.check(quantity2QuoteId, async () => {
      const documented = '422 naming quantity_2 (does_not_match_quote)';
      expectStatus(named, isClientError, documented);
      if (!named.responseText.includes('quantity_2')) {
        throw new Failure(`the refusal of a quantity_2 no quote gave does not name quantity_2`, {
          received: named.responseText.slice(0, 300),
          documented,
          call: named,
        });
      }
      return `${named.status}, naming quantity_2`;
    });
  },
};

export const partnerScenarios: Scenario[] = [
  intentExpiry,
  intentDefault,
  tradeStates,
  intentStrategies,
  clientRefPerSession,
  quantity2FromQuote,
];
