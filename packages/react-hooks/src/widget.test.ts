import { zWidgetInitialization } from '@exchange-kit/partner-client/schemas';
import { describe, expect, it } from 'vitest';
import { widgetInitialization } from './widget.js';

describe('widgetInitialization', () => {
  it('builds the object the widget takes, valid against the spec', () => {
    const widget = widgetInitialization({
      publicApiKey: 'pk_sandbox_demo',
      configVersion: '1.2',
      intentId: '9b2f4c1e-5d3a-4e7b-8c6f-1a2b3c4d5e6f',
      defaultTransaction: {
        funding_settlement: { currency: 'EUR', quantity: '100' },
        payout_settlement: { currency: 'BTC' },
      },
    });
    expect(zWidgetInitialization.parse(widget)).toEqual(widget);
    expect(widget).toEqual({
      public_api_key: 'pk_sandbox_demo',
      config_version: '1.2',
      intent_id: '9b2f4c1e-5d3a-4e7b-8c6f-1a2b3c4d5e6f',
      default_transaction: {
        funding_settlement: { currency: 'EUR', quantity: '100' },
        payout_settlement: { currency: 'BTC' },
      },
    });
  });

  it('leaves out what is not set, so the widget lets the user choose', () => {
    const widget = widgetInitialization({ publicApiKey: 'pk_sandbox_demo', configVersion: '1.2' });
    expect(widget).toEqual({ public_api_key: 'pk_sandbox_demo', config_version: '1.2' });
    expect(zWidgetInitialization.safeParse(widget).success).toBe(true);
  });
});
