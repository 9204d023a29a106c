import type { components, WidgetInitialization } from '@exchange-kit/partner-client';
import { useMemo } from 'react';
import { useQuickExchange } from './provider.js';

type Schemas = components['schemas'];

/** The object the Quick Exchange widget is initialised with. */
export type { WidgetInitialization };

export interface WidgetOptions {
  publicApiKey: string;
  configVersion: string;
  /** Starts the widget on the quote screen with the payout currency and quantity locked. */
  intentId?: string;
  /** Default, user-changeable currency (and funding quantity) for either side. */
  defaultTransaction?: Schemas['DefaultTransaction'];
}

/** Builds the widget initialization object, leaving out what is not set. */
export function widgetInitialization(options: WidgetOptions): WidgetInitialization {
  return {
    public_api_key: options.publicApiKey,
    config_version: options.configVersion,
    ...(options.intentId === undefined ? {} : { intent_id: options.intentId }),
    ...(options.defaultTransaction === undefined
      ? {}
      : { default_transaction: options.defaultTransaction }),
  };
}

/**
 * The widget initialization object for the provider's public API key, the same object across
 * renders while the options are the same.
 */
export function useWidgetInitialization(
  options: Omit<WidgetOptions, 'publicApiKey'>,
): WidgetInitialization {
  const { publicApiKey } = useQuickExchange();
  const { configVersion, intentId, defaultTransaction } = options;
  return useMemo(
    () =>
      widgetInitialization({
        publicApiKey,
        configVersion,
        ...(intentId === undefined ? {} : { intentId }),
        ...(defaultTransaction === undefined ? {} : { defaultTransaction }),
      }),
    [publicApiKey, configVersion, intentId, defaultTransaction],
  );
}
