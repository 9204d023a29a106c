import type { UserSession } from '@exchange-kit/partner-client';
import { describe, expectTypeOf, it } from 'vitest';
import type { QuickExchangeConfig } from './provider.js';
import { type QuickExchangeSession, type UserSessionResult, useUserSession } from './session.js';

describe('useUserSession types', () => {
  it('returns a session without its secret', () => {
    expectTypeOf(useUserSession).returns.toEqualTypeOf<UserSessionResult>();
    expectTypeOf<QuickExchangeSession>().not.toHaveProperty('session_secret');
    expectTypeOf<QuickExchangeSession['sessionId']>().toEqualTypeOf<string>();
    expectTypeOf<QuickExchangeSession['environment']>().toEqualTypeOf<'SANDBOX' | 'PRODUCTION'>();
    expectTypeOf<UserSession>().toHaveProperty('session_secret');
    expectTypeOf<UserSessionResult['renew']>().returns.resolves.toEqualTypeOf<
      QuickExchangeSession | undefined
    >();
  });

  it('takes a browser configuration and no token secret', () => {
    expectTypeOf({ partnersUrl: 'u', publicApiKey: 'k' }).toExtend<QuickExchangeConfig>();
    expectTypeOf({
      partnersUrl: 'u',
      publicApiKey: 'k',
      tokenSecret: 's',
    }).not.toExtend<QuickExchangeConfig>();
    expectTypeOf({
      partnersUrl: 'u',
      publicApiKey: 'k',
      tokenId: 't',
    }).not.toExtend<QuickExchangeConfig>();
  });
});
