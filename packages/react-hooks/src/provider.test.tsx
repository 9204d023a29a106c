import { render, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sandboxConfig } from '../test/support.js';
import {
  createQuickExchange,
  type QuickExchangeConfig,
  QuickExchangeProvider,
  useQuickExchange,
} from './provider.js';

describe('QuickExchangeProvider', () => {
  // React throws a render's error out of render here, logging nothing: no console to hold.
  it('refuses a token secret, even from untyped JavaScript', () => {
    const config = {
      ...sandboxConfig(),
      tokenId: 't',
      tokenSecret: 's',
    } as unknown as QuickExchangeConfig;
    expect(() => render(<QuickExchangeProvider config={config} />)).toThrow(
      'QuickExchangeProvider takes no tokenId or tokenSecret: create intents on your backend',
    );
  });

  it('gives its hooks a partner client for the public key', () => {
    const config = sandboxConfig();
    const { result } = renderHook(() => useQuickExchange(), {
      wrapper: ({ children }) => (
        <QuickExchangeProvider config={config}>{children}</QuickExchangeProvider>
      ),
    });
    expect(result.current.publicApiKey).toBe(config.publicApiKey);
    expect(result.current.client.publicApiKey).toBe(config.publicApiKey);
  });

  it('takes a QuickExchange made outside React, to share it with loaders that prefetch', () => {
    const quickExchange = createQuickExchange(sandboxConfig());
    const { result } = renderHook(() => useQuickExchange(), {
      wrapper: ({ children }) => (
        <QuickExchangeProvider quickExchange={quickExchange}>{children}</QuickExchangeProvider>
      ),
    });
    expect(result.current).toBe(quickExchange);
    expect(() =>
      createQuickExchange({
        ...sandboxConfig(),
        tokenSecret: 's',
      } as unknown as QuickExchangeConfig),
    ).toThrow(/takes no tokenId or tokenSecret/);
  });

  it('tells where a hook is missing its provider', () => {
    expect(() => renderHook(() => useQuickExchange())).toThrow(
      'Quick Exchange hooks must be used inside <QuickExchangeProvider>',
    );
  });
});
