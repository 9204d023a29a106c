import type { components } from '@exchange-kit/partner-client';

type Schemas = components['schemas'];

/** The object the Quick Exchange widget is initialised with. */
export type WidgetInitialization = Schemas['WidgetInitialization'];

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
