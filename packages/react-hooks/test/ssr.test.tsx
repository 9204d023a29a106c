// @vitest-environment node
/**
 * Server rendering: importing the hooks and rendering with them must not reach for `window`
 * or `document`, which do not exist there. Traps on the globals record every read made from
 * this package's sources.
 */
import { QueryClient } from '@tanstack/react-query';
import { renderToString } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

type Hooks = typeof import('../src/index.js');

function Checkout({ hooks }: { hooks: Hooks }) {
  const { data: session } = hooks.useUserSession({
    restore: {
      sessionId: 'ca876623-0a4f-4abd-92e0-14ea7075ca1e',
      environment: 'SANDBOX',
      suggestedCountry: 'SG',
      defaultTransaction: {},
      termsOfServiceHref: 'https://partners.exchange.example/legal/terms-of-service',
    },
  });
  const intent = hooks.useIntent(undefined);
  const transaction = hooks.useTransaction({
    sessionId: session?.sessionId,
    order: { side: 'buy', symbol: 'BTC/USDC', currency: 'BTC', quantity: '0.01' },
  });
  const countdown = hooks.useSettlementCountdown(transaction.funding);
  const widget = hooks.useWidgetInitialization({ configVersion: '1.2' });
  const shown = {
    sessionId: session?.sessionId,
    intent: intent.data ?? null,
    status: transaction.transactionStatus ?? null,
    expired: countdown.expired,
    widgetKey: widget.public_api_key,
  };
  return <pre>{JSON.stringify(shown)}</pre>;
}

const reads: string[] = [];
const readsFromSources = () => reads.filter((read) => read.includes('/react-hooks/src/'));
const trapped = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage'] as const;

beforeAll(() => {
  expect(typeof globalThis.window).toBe('undefined');
  for (const name of trapped) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        reads.push(`${name}\n${new Error().stack ?? ''}`);
        return undefined;
      },
    });
  }
  // Workers are shared between files: evaluate this package's modules afresh, under the traps.
  vi.resetModules();
});

afterAll(() => {
  for (const name of trapped) Reflect.deleteProperty(globalThis, name);
});

describe('server rendering', () => {
  it('imports and renders every hook without touching browser globals', async () => {
    const hooks = await import('../src/index.js');
    const html = renderToString(
      <hooks.QuickExchangeProvider
        config={{ partnersUrl: 'http://127.0.0.1:1', publicApiKey: 'pk_sandbox_demo' }}
        queryClient={new QueryClient()}
      >
        <Checkout hooks={hooks} />
      </hooks.QuickExchangeProvider>,
    );
    const shown = JSON.parse(html.replace(/^<pre>|<\/pre>$/g, '').replaceAll('&quot;', '"'));
    expect(shown).toEqual({
      sessionId: 'ca876623-0a4f-4abd-92e0-14ea7075ca1e',
      intent: null,
      status: null,
      expired: false,
      widgetKey: 'pk_sandbox_demo',
    });
    expect(readsFromSources()).toEqual([]);
  });

  it('records the reads it is looking for (control)', () => {
    const before = reads.length;
    expect(globalThis.window).toBeUndefined();
    // Frames carry the file's path, so a read from src/ would show as /react-hooks/src/.
    expect(reads.slice(before).join()).toContain('/react-hooks/test/ssr.test.tsx');
  });
});
