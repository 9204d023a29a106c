import type { RequirementId } from '@exchange-kit/contract/state-tables';
import { hasFlag } from '@exchange-kit/contract/state-tables';
import type { SessionCredentials } from '@exchange-kit/core/auth';
import fc from 'fast-check';
import { defaultAdapter } from '../engine/adapter.js';
import { bodyOf, isSuccess } from '../engine/context.js';
import { Failure, type RecordedCall } from '../engine/outcome.js';
import { expected } from './expected.js';
import { checkModel } from './model-check.js';
import { example, partnerSession } from './partner.js';
import type { Scenario, ScenarioContext } from './scenario.js';

export const transactionModelId = 'MODEL-TRANSACTION-SEQUENCES';

type Row = Record<string, unknown>;

/** What the suite believes of one transaction: created by a row, moved only as the flags allow. */
interface ModelTransaction {
  id: string;
  state: string;
}

interface Model {
  transactions: ModelTransaction[];
}

interface Real {
  context: ScenarioContext;
  session: SessionCredentials;
  canEnd: boolean;
  calls: RecordedCall[];
}

const maxCommands = 8;

async function send(
  real: Real,
  operationId: string,
  options: Parameters<ScenarioContext['caller']['call']>[1],
): Promise<RecordedCall> {
  const call = await real.context.caller.call(operationId, options);
  real.calls.push(call);
  return call;
}

const payloadOf = (call: RecordedCall): Row => (bodyOf(call).payload as Row | undefined) ?? {};

/** Each creation row of the transaction table, with the spec example that meets its condition. */
const creations: Record<string, { row: RequirementId; example: string }> = {
  'no method': { row: 'QE-TRADE-NO-METHOD', example: 'minimal' },
  'both methods': { row: 'QE-TRADE-BOTH-METHODS', example: 'full' },
  'a parameter missing': { row: 'QE-TRADE-PARAMETER-MISSING', example: 'missingSignedTransaction' },
};

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: keyof typeof creations) {}
  check = (model: Readonly<Model>) => model.transactions.length < 4;
  async run(model: Model, real: Real) {
    const { row, example: name } = creations[this.kind] as (typeof creations)[string];
    const body: Row = { ...example('intentToTrade', name), session_id: real.session.sessionId };
    // The example's quote names no quote of this server; client_ref must not repeat.
    delete body.quote_id;
    delete body.quantity_2;
    delete body.client_ref;
    const call = await send(real, 'intentToTrade', {
      body,
      auth: { kind: 'session', session: real.session },
    });
    const { status, next } = expected(row);
    const state = payloadOf(call).status;
    if (call.status !== status || state !== next) {
      throw new Failure(
        `${this.toString()}: answered ${call.status} with status ${String(state)}, where ${row} gives ${status} and ${next}`,
        {
          received: call.responseText.slice(0, 300),
          documented: `${row}: ${status}, ${next}`,
          call,
        },
      );
    }
    model.transactions.push({ id: String(payloadOf(call).transaction_id), state: String(next) });
  }
  toString = () => `intent_to_trade(${this.kind})`;
}

class ReadStatus implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.transactions.length > 0;
  async run(model: Model, real: Real) {
    const transaction = model.transactions[
      this.pick % model.transactions.length
    ] as ModelTransaction;
    const call = await send(real, 'getTransactionStatus', {
      path: { transaction_id: transaction.id },
      auth: { kind: 'session', session: real.session },
    });
    const read = String(payloadOf(call).status);
    if (isSuccess(call.status) && read === transaction.state) return;
    // A state the table flags `polled` moves on by itself, to a state that ends it.
    const movedOn =
      hasFlag('transaction', transaction.state, 'polled') &&
      hasFlag('transaction', read, 'terminal');
    if (isSuccess(call.status) && movedOn) {
      transaction.state = read;
      return;
    }
    throw new Failure(
      `${this.toString()}: transaction ${transaction.id} reads back ${call.status} ${read}; the state tables give ${transaction.state}${hasFlag('transaction', transaction.state, 'polled') ? ' or a terminal state' : ', which moves only by a call'}`,
      { received: call.responseText.slice(0, 300), documented: transaction.state, call },
    );
  }
  toString = () => `status(#${this.pick})`;
}

class End implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly status: 'FILLED' | 'CANCELLED',
  ) {}
  check = (model: Readonly<Model>) => model.transactions.length > 0;
  async run(model: Model, real: Real) {
    const transaction = model.transactions[
      this.pick % model.transactions.length
    ] as ModelTransaction;
    // Without the adapter step the exchange's own move cannot be made: the step does nothing.
    if (!real.canEnd || hasFlag('transaction', transaction.state, 'terminal')) return;
    await real.context.adapter.endTransaction(
      real.context.adapterContext,
      transaction.id,
      this.status,
    );
    transaction.state = this.status;
  }
  toString = () => `end(#${this.pick}, ${this.status}, through the adapter)`;
}

const pick = fc.nat({ max: 3 });
const create = fc
  .constantFrom<keyof typeof creations>('no method', 'both methods', 'a parameter missing')
  .map((kind) => new Create(kind));
const commands = [
  create,
  create,
  pick.map((p) => new ReadStatus(p)),
  pick.map((p) => new ReadStatus(p)),
  fc
    .tuple(pick, fc.constantFrom<'FILLED' | 'CANCELLED'>('FILLED', 'CANCELLED'))
    .map(([p, status]) => new End(p, status)),
];

const transactionSequences: Scenario = {
  name: 'random sequences of transaction steps against a model of the transaction table',
  profile: 'model',
  requires: ['partner-transactions', 'partner-sessions'],
  covers: [transactionModelId],
  async run(context) {
    const session = await partnerSession(context);
    const canEnd = context.adapter.endTransaction !== defaultAdapter.endTransaction;
    await checkModel(context, {
      requirementId: transactionModelId,
      commands,
      maxCommands,
      // Each row of the table read back once, whatever the seed draws: a fault in one row's
      // read-back is not left to the luck of the draw.
      examples: (Object.keys(creations) as (keyof typeof creations)[]).map((kind) => [
        new Create(kind),
        new ReadStatus(0),
      ]),
      model: () => ({ transactions: [] }),
      real: (): Real => ({ context, session, canEnd, calls: [] }),
      modelled: 'the transaction table',
      passed: (sequences) =>
        `${sequences} sequences of up to ${maxCommands} steps held to the transaction table${canEnd ? '' : ' (without ending transactions: the adapter has no endTransaction step)'}`,
    });
  },
};

export const transactionModelScenarios: Scenario[] = [transactionSequences];
