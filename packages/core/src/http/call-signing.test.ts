import { operationTable as exchangeTable } from '@exchange-kit/contract/exchange';
import { operationTable as partnerTable } from '@exchange-kit/contract/partner';
import { describe, expect, it } from 'vitest';
import { callSigningOf } from './call-signing.js';

describe('callSigningOf', () => {
  it('reads each kind of signing off the operations tables', () => {
    expect(callSigningOf(exchangeTable.cancelOrder)).toBe('service');
    // Signed with one's own token; an approved OAuth request makes it a call for the user.
    expect(callSigningOf(exchangeTable.getUserContext)).toBe('service');
    expect(callSigningOf(partnerTable.createIntent)).toBe('delegated');
    expect(callSigningOf(partnerTable.intentToTrade)).toBe('session');
    expect(callSigningOf(partnerTable.createSession)).toBe('none');
  });
});
