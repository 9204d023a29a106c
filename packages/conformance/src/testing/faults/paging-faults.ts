import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import { is, type Row, withJson } from './proxied.js';

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

export const pagingFaults: Fault[] = [
  pageIgnored(),
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
