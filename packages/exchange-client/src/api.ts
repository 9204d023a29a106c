import type { operations as Operations, paths } from '@exchange-kit/contract/exchange';
import type { Api } from '@exchange-kit/core';

/** The exchange's operations, as the core's typed caller makes them from the spec. */
export type ExchangeApi = Api<paths, Operations>;

/** One exchange operation called by its operationId: what each group of calls is built on. */
export type Call = ExchangeApi['call'];
