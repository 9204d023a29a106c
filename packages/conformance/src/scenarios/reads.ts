import { approvedRequest } from './oauth-grant.js';
import type { Scenario } from './scenario.js';

const loanBook: Scenario = {
  name: 'loan book and public market data',
  profile: 'loan-book',
  covers: ['STATUS-200-SUCCESS'],
  async run(context) {
    const market = await context.market();
    const ladder = await context.caller.call('getLoanBook', {
      path: { currency: market.primary.baseCurrency },
    });
    context.evidence.noteStatus('STATUS-200-SUCCESS', ladder, 200);
    await context.caller.call('getProduct', { path: { product_id: market.primary.id } });
    await context.caller.call('getPriceLevels', { path: { product_id: market.primary.id } });
  },
};

const oauth: Scenario = {
  name: 'OAuth request, approval, user context and accounts',
  profile: 'oauth',
  covers: ['STATUS-200-SUCCESS'],
  async run(context) {
    const ids = await approvedRequest(context, context.runId, (created) =>
      context.evidence.noteStatus('STATUS-200-SUCCESS', created, 200),
    );
    for (const operationId of ['getUserContext', 'getAccounts']) {
      const read = await context.caller.call(operationId, { auth: { kind: 'oauth', ids } });
      context.evidence.noteStatus('STATUS-200-SUCCESS', read, 200);
    }
  },
};

export const readScenarios: Scenario[] = [loanBook, oauth];
