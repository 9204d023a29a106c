/**
 * The catalogue of deliberate server faults that scores the suite: each breaks the requirement
 * it `covers`, and the suite must catch every one (src/engine/conformance.test.ts).
 */
import { eventFaults } from '../event-faults.js';
import type { Fault } from '../fault-proxy.js';
import { valueFaults } from '../value-faults.js';
import { authFaults, clientRefShared } from './auth-faults.js';
import { fieldFaults } from './field-faults.js';
import { generatedFaults } from './generated-faults.js';
import { inputFaults, schemaFaults } from './input-faults.js';
import { borrowingFaults, lenderFaults, loanBidFaults } from './loan-faults.js';
import { oauthStateFaults } from './oauth-faults.js';
import { pagingFaults } from './paging-faults.js';
import { is, withBody } from './proxied.js';
import { requestFaults } from './request-faults.js';
import { responseFaults } from './response-faults.js';
import { markFaults, tradingAccountFaults } from './trading-faults.js';
import { withdrawalFaults } from './withdrawal-faults.js';

export { clientRefShared } from './auth-faults.js';
export {
  cancelAfterEditIgnored,
  crashWithoutTerms,
  fillLost,
  methodsForgotten,
} from './generated-faults.js';
export { forgetfulFault, sameOrderIdFault } from './stateless-faults.js';

/** Every fault the suite must catch, at least one per requirement. */
export const faults: Fault[] = [
  ...requestFaults,
  ...authFaults,
  ...inputFaults,
  ...schemaFaults,
  ...responseFaults,
  ...pagingFaults,
  ...fieldFaults.filter((fault) => !fault.testControl),
  ...valueFaults,
  ...generatedFaults,
  ...withdrawalFaults,
  ...loanBidFaults,
  ...fieldFaults.filter((fault) => fault.testControl),
  ...borrowingFaults,
  ...lenderFaults,
  ...tradingAccountFaults,
  clientRefShared(),
  {
    name: 'quantity_2 is not checked against a quote: the server prices the trade itself',
    covers: 'INPUT-QUANTITY-2-NOT-QUOTED',
    request: (request) =>
      is(request, 'intentToTrade')
        ? withBody(request, (body) => {
            delete body.quantity_2;
            return body;
          })
        : request,
  },
  ...oauthStateFaults,
  ...eventFaults,
  ...markFaults,
];
