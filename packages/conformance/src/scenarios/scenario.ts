import type {
  AdapterContext,
  AdapterStep,
  Market,
  OrderFixture,
  OrderRef,
  ResolvedAdapter,
  TradingType,
} from '../engine/adapter.js';
import type { Profile } from '../engine/catalog.js';
import type { Evidences, SpecClient } from '../engine/context.js';
import type { Target } from '../engine/target.js';

/** What a scenario works with: signed calls, the evidence it records and the fixtures. */
export interface ScenarioContext {
  target: Target;
  runId: string;
  /** The seed of the run: every generated value derives from it. */
  seed: string;
  /** How many inputs (or command sequences) a generated check tries before it passes. */
  maxExamples: number;
  /** When the run started, Unix milliseconds. */
  startedAt: number;
  /** The profiles selected for the run. */
  profiles: ReadonlySet<Profile>;
  caller: SpecClient;
  evidence: Evidences;
  adapter: ResolvedAdapter;
  adapterContext: AdapterContext;
  /** The market the order fixtures trade in, discovered once per run. */
  market(): Promise<Market>;
  /** A fresh client order id, prefixed with the run id. */
  clientOrderId(): string;
  /**
   * Notes a thing the run made; throws a PreconditionError (and marks the run stateless) when
   * an earlier one of its kind had the same id. Scenarios need distinct things (an attack on
   * another order's path, a second user session, an intent consumed while another is not): an
   * id given twice makes every such check meaningless, on either interface.
   */
  distinct(
    kind: 'order' | 'user session' | 'intent' | 'transaction',
    id: unknown,
    name: string,
  ): void;
  /**
   * Signed calls as another trader (the adapter's anotherTrader step), their answers checked
   * against the specs as the caller's are; a Skip when the adapter gives no such step.
   */
  anotherTrader(): Promise<SpecClient>;
  /** A live order made through the adapter, remembered for the cleanup. */
  liveOrder(fixture: Partial<Omit<OrderFixture, 'clientOrderId'>>): Promise<OrderRef>;
  /** Orders the run made that may still be live; the run cancels them at the end. */
  created: OrderRef[];
}

/** A deterministic sequence of calls that gives evidence about the requirements it covers. */
export interface Scenario {
  name: string;
  /** The profile the scenario belongs to; it runs only when that profile is selected. */
  profile: Profile;
  /** Other profiles whose operations it needs for its fixtures. */
  requires?: Profile[];
  /** Requirement ids it gives evidence about; the scenario runs when one of them is selected. */
  covers: string[];
  /**
   * Its checks read the whole account (cancel_all, "no order was created"): it runs alone,
   * never beside another scenario.
   */
  exclusive?: boolean;
  /**
   * The adapter steps its checks cannot do without; what needs a step the default adapter
   * lacks is SKIPped unless the adapter gives it. `answers` names the operations whose 2xx no
   * scenario reaches but after that step, so a run with the default adapter never sees one.
   */
  needs?: readonly { step: AdapterStep; answers?: readonly string[] }[];
  run(context: ScenarioContext): Promise<void>;
}

export type { TradingType };
