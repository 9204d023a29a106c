import type { ConformanceAdapter } from '@exchange-kit/conformance';

/** Your server's back office: here, a stub that places orders over its own admin API. */
declare const backOffice: { placeOrder(fixture: unknown): Promise<string> };

const adapter: ConformanceAdapter = {
  // Live orders come from the back office; the suite still reads and cancels them through the API.
  async placeLiveOrder(_context, fixture) {
    const id = await backOffice.placeOrder(fixture);
    return {
      id,
      clientOrderId: fixture.clientOrderId,
      productId: fixture.product.id,
      side: fixture.side,
      tradingType: fixture.tradingType,
    };
  },
  // This server has no margin trading: the requirements that need conditional orders are SKIPped.
  placeConditionalOrders: null,
};
export default adapter;
