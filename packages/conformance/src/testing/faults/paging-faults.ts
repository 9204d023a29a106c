import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import { is, type Row, withJson, withoutQuery } from './proxied.js';

const queryOf = (request: ProxiedRequest) => new URLSearchParams(request.path.split('?')[1]);

/** A page of the ledger that ignores `page`: every page of a limit answers the first one. */
function pageIgnored(): Fault {
  const firstPages = new Map<string, ProxiedResponse>();
  return {
    name: 'the ledger answers its first page whatever page is asked',
    covers: 'LEDGER-PAGES-WALK',
    response: (request, response) => {
      if (!is(request, 'listTransactions') || response.status !== 200) return response;
      const query = queryOf(request);
      const limit = query.get('limit') ?? '';
      if ((query.get('page') ?? '1') === '1') {
        firstPages.set(limit, response);
        return response;
      }
      return firstPages.get(limit) ?? response;
    },
  };
}

/** A list that ignores its `param` filter: the request reaches the server without it. */
function filterIgnored(operationId: string, param: string, covers: string): Fault {
  return {
    name: `${operationId} ignores its ${param} filter`,
    covers,
    request: withoutQuery(operationId, param),
  };
}

/** Every page of the ledger says `field` is 1. */
const saysOne = (field: 'current_page' | 'total_pages'): Fault => ({
  name: `every page of the ledger says ${field} 1`,
  covers: 'LEDGER-PAGES-WALK',
  response: (request, response) =>
    is(request, 'listTransactions') && response.status === 200
      ? withJson(response, (page) => ({ ...(page as Row), [field]: 1 }))
      : response,
});

export const pagingFaults: Fault[] = [
  pageIgnored(),
  saysOne('current_page'),
  saysOne('total_pages'),
  filterIgnored('listBalanceHistory', 'source_action', 'LEDGER-EXPLAINS-BALANCE'),
  filterIgnored('listBalanceHistory', 'currency', 'LEDGER-EXPLAINS-BALANCE'),
  filterIgnored('listTransactions', 'transaction_type', 'LEDGER-EXPLAINS-BALANCE'),
  {
    name: 'a page of the ledger gives its first entry again in place of its last',
    covers: 'LEDGER-PAGES-WALK',
    response: (request, response) =>
      is(request, 'listTransactions') && response.status === 200
        ? withJson(response, (page) => {
            const models = (page as Row).models as Row[];
            if (models.length < 2) return page;
            return { ...(page as Row), models: [...models.slice(0, -1), models[0]] };
          })
        : response,
  },
];
