import type { components } from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import {
  useWidgetInitialization,
  type WidgetInitialization,
  widgetInitialization,
} from './widget.js';

describe('widget types', () => {
  it('builds the spec type of the widget initialization object', () => {
    expectTypeOf<WidgetInitialization>().toEqualTypeOf<
      components['schemas']['WidgetInitialization']
    >();
    expectTypeOf(widgetInitialization).returns.toEqualTypeOf<WidgetInitialization>();
    expectTypeOf(useWidgetInitialization).returns.toEqualTypeOf<WidgetInitialization>();
  });

  it('takes the public key from the provider, not from the hook options', () => {
    expectTypeOf(useWidgetInitialization).parameter(0).not.toHaveProperty('publicApiKey');
    expectTypeOf({ configVersion: '1.2', intentId: 'x' }).toExtend<
      Parameters<typeof useWidgetInitialization>[0]
    >();
  });
});
