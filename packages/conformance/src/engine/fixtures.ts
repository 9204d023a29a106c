import { AsyncLocalStorage } from 'node:async_hooks';
import type { ScenarioContext } from '../scenarios/scenario.js';
import type { AdapterContext, Market, OrderRef } from './adapter.js';
import { SpecClient } from './context.js';
import { PreconditionError } from './outcome.js';

/** The scenario running now: its place in the list, its client order ids, what it checked. */
export interface RunningScenario {
  index: number;
  count: number;
  checked: Set<string>;
}

/** What the scenarios of one run share: the context and fixtures, and which one is running. */
export interface RunFixtures {
  context: ScenarioContext;
  /** Runs a scenario's work as that scenario, apart from those running beside it. */
  running: AsyncLocalStorage<RunningScenario>;
  /** Why the server seems to keep no state, once a check found it; said once in the report. */
  stateless(): string | undefined;
}

/** The context every scenario of a run gets: its signed calls, evidence and fixtures. */
export function runFixtures(
  run: Pick<
    ScenarioContext,
    | 'target'
    | 'runId'
    | 'seed'
    | 'maxExamples'
    | 'startedAt'
    | 'profiles'
    | 'caller'
    | 'evidence'
    | 'adapter'
  >,
): RunFixtures {
  const { target, runId, caller, evidence, adapter } = run;
  const adapterContext: AdapterContext = {
    target,
    runId,
    call: (operationId, callOptions) => caller.call(operationId, callOptions),
  };
  // Client order ids count per scenario, so a replay with the same seed gives each scenario
  // the same ids whatever ran beside it.
  const running = new AsyncLocalStorage<RunningScenario>();
  // What each scenario gave evidence about, apart from the scenarios running beside it.
  evidence.listeners.add((item) => running.getStore()?.checked.add(item.requirementId));
  let outside = 0;
  let market: Promise<Market> | undefined;
  const created: OrderRef[] = [];
  let stateless: string | undefined;
  const noState = (reason: string): PreconditionError => {
    stateless ??= `the server does not seem to keep state: ${reason}`;
    return new PreconditionError(`precondition does not hold: ${reason}`);
  };
  let firstReadBack: Promise<void> | undefined;
  // What the run made, by kind and id, with the name it was made under.
  const made = new Map<string, string>();
  const context: ScenarioContext = {
    target,
    runId,
    seed: run.seed,
    maxExamples: run.maxExamples,
    startedAt: run.startedAt,
    profiles: run.profiles,
    caller,
    evidence,
    adapter,
    adapterContext,
    created,
    market: () => {
      market ??= adapter.discoverMarket(adapterContext);
      return market;
    },
    clientOrderId: () => {
      const scenario = running.getStore();
      if (!scenario) return `${runId}-${++outside}`;
      return `${runId}-${scenario.index}-${++scenario.count}`;
    },
    distinct(kind, id, name) {
      const key = `${kind} ${String(id)}`;
      const earlier = made.get(key);
      if (earlier === undefined) {
        made.set(key, name);
        return;
      }
      throw noState(`${name} was given id ${String(id)}, the id of ${earlier} made before it`);
    },
    async anotherTrader() {
      const credentials = await adapter.anotherTrader(adapterContext);
      const trader = new SpecClient({ ...target, ...credentials });
      trader.onCall.push(...caller.onCall);
      return trader;
    },
    async liveOrder(fixture) {
      const current = await context.market();
      const order = await adapter.placeLiveOrder(
        adapterContext,
        {
          product: current.primary,
          side: 'buy',
          tradingType: 'spot',
          ...fixture,
          clientOrderId: context.clientOrderId(),
        },
        current,
      );
      created.push(order);
      context.distinct('order', order.id, `order ${order.clientOrderId ?? '?'}`);
      // The first order is read back once: a server that forgets what it made fails every
      // read-back, and says so better here than in each of them.
      firstReadBack ??= (async () => {
        const read = await caller.call('getOrder', { path: { order_id: String(order.id) } });
        if (read.status === 404) {
          throw noState(
            `order ${order.id}, just created, cannot be read back (GET /orders/${order.id} answered 404)`,
          );
        }
      })();
      await firstReadBack;
      return order;
    },
  };

  return { context, running, stateless: () => stateless };
}

/** Cancels every order of the run that is still live; returns those it could not. */
export async function cleanUp(context: ScenarioContext): Promise<string[]> {
  if (context.created.length === 0) return [];
  const ours = new Set(context.created.map((order) => String(order.id)));
  const leftovers: string[] = [];
  try {
    const listed = await context.caller.call('listOrders', {
      query: { status: 'live', limit: '1000' },
    });
    const models = (
      (listed.json as { models?: Record<string, unknown>[] } | undefined)?.models ?? []
    ).filter(
      (order) =>
        ours.has(String(order.id)) ||
        String(order.client_order_id ?? '').startsWith(`${context.runId}-`),
    );
    for (const order of models) {
      const cancelled = await context.caller.call('cancelOrder', {
        path: { order_id: String(order.id) },
      });
      if (cancelled.status !== 200) leftovers.push(String(order.id));
    }
  } catch {
    leftovers.push(...ours);
  }
  return leftovers;
}
