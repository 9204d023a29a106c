import { zWidgetInitialization } from '@exchange-kit/contract/partner/schemas';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { backend, providerWrapper } from '../test/support.js';
import { useUserSession } from './session.js';
import { useWidgetInitialization, widgetInitialization } from './widget.js';

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

describe('useWidgetInitialization', () => {
  it('takes the provider key, stays the same object across renders, and opens a widget session', async () => {
    const intent = await backend().createIntent({ currency: 'BTC', quantity: '0.001' });
    const defaults = { funding_settlement: { currency: 'EUR', quantity: '250' } };
    const { wrapper } = providerWrapper();
    const { result, rerender } = renderHook(
      () => {
        const widget = useWidgetInitialization({
          configVersion: '1.2',
          intentId: intent.id,
          defaultTransaction: defaults,
        });
        return { widget, session: useUserSession({ widget }) };
      },
      { wrapper },
    );
    const first = result.current.widget;
    expect(first).toEqual({
      public_api_key: 'pk_sandbox_demo',
      config_version: '1.2',
      intent_id: intent.id,
      default_transaction: defaults,
    });
    act(() => rerender());
    expect(result.current.widget).toBe(first);
    // The sandbox checks the intent and takes the widget's defaults for the session.
    await waitFor(() =>
      expect(result.current.session.data?.defaultTransaction).toEqual({
        funding_settlement: { currency: 'EUR', quantity: '250' },
      }),
    );
  });
});
