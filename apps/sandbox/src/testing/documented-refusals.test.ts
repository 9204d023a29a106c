import { describe, expect, it } from 'vitest';
import { buildRoutes, findRoute } from '../http/router.js';
import { checkDocumentedRefusal } from './documented-refusals.js';

const routes = buildRoutes();
const closeBid = (() => {
  const found = findRoute(routes, 'PUT', '/loan_bids/7/close');
  if (found.kind !== 'matched') throw new Error('no route');
  return found.match;
})();
const sent = { path: closeBid.path, query: {}, body: undefined };
const refusing = (errors: Record<string, string[]>) => ({ status: 422, body: { errors } });

describe('a refusal checked against the spec', () => {
  it('passes a code the operation lists, with or without its detail', () => {
    expect(() =>
      checkDocumentedRefusal(closeBid.route, sent, refusing({ status: ['closed'] })),
    ).not.toThrow();
    expect(() =>
      checkDocumentedRefusal(closeBid.route, sent, refusing({ status: ['closed:at_noon'] })),
    ).not.toThrow();
  });

  it('stops a test at a code or field the operation does not list', () => {
    expect(() =>
      checkDocumentedRefusal(closeBid.route, sent, refusing({ status: ['melted'] })),
    ).toThrow('closeLoanBid refused status: melted, which its x-error-codes do not list');
    expect(() =>
      checkDocumentedRefusal(closeBid.route, sent, refusing({ loan_bid_id: ['closed'] })),
    ).toThrow('closeLoanBid refused loan_bid_id: closed');
  });

  it('leaves a refusal by the schemas alone, and every other answer', () => {
    const badPath = { ...sent, path: { loan_bid_id: 'abc' } };
    expect(() =>
      checkDocumentedRefusal(
        closeBid.route,
        badPath,
        refusing({ loan_bid_id: ['must_be_integer'] }),
      ),
    ).not.toThrow();
    expect(() =>
      checkDocumentedRefusal(closeBid.route, sent, { status: 404, body: { message: 'x' } }),
    ).not.toThrow();
  });
});
