import { describe, expect, it } from 'vitest';
import { operationTable as exchangeTable } from './exchange.js';
import exchangeSpec from './generated/exchange.openapi.json' with { type: 'json' };
import partnerSpec from './generated/partner.openapi.json' with { type: 'json' };
import { operationTable as partnerTable } from './partner.js';

type Document = {
  paths: Record<string, Record<string, { operationId?: string; responses: object }>>;
};
type Entry = {
  method: string;
  path: string;
  successes: readonly number[];
  errors: readonly number[];
};

const apis = [
  ['exchange', exchangeSpec as unknown as Document, exchangeTable as Record<string, Entry>],
  ['partner', partnerSpec as unknown as Document, partnerTable as Record<string, Entry>],
] as const;

describe.each(apis)('%s operations table', (_name, document, table) => {
  it('has every operation of the bundled spec, with its method, path and statuses', () => {
    const seen: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.operationId) continue;
        seen.push(operation.operationId);
        const entry = table[operation.operationId];
        const statuses = Object.keys(operation.responses).map(Number);
        expect(entry).toMatchObject({ method: method.toUpperCase(), path });
        expect([...(entry?.successes ?? []), ...(entry?.errors ?? [])].sort()).toEqual(
          statuses.sort(),
        );
      }
    }
    expect(Object.keys(table).sort()).toEqual(seen.sort());
  });
});

describe('what the table says of an operation', () => {
  it('gives the 202 of intent_to_trade and the payload a delegated call signs', () => {
    expect(partnerTable.intentToTrade.successes).toEqual([202]);
    expect(exchangeTable.getUserContext.authPayload).toBe('OAuthDelegatedPayload');
    expect(exchangeTable.cancelOrder.errors).toContain(404);
  });
});
