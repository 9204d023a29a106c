import { describe, expect, it } from 'vitest';
import { catalog } from './catalog.js';
import { judgeValues, select, type ValueContext, valueCheckKinds } from './values.js';

const context: ValueContext = {
  baseUrl: 'http://127.0.0.1:4000',
  user: { user_id: 1001 },
  products: new Map([['1', { id: '1', base_currency: 'BTC', quoted_currency: 'JPY' }]]),
  answeredAt: Date.parse('2026-11-24T04:15:37.864Z'),
};

describe('checks of the statements about values', () => {
  it('knows every kind spec/state-tables.yaml names', () => {
    const named = catalog.flatMap((r) => r.checks ?? []).map((check) => check.kind);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((kind) => !valueCheckKinds.includes(kind))).toEqual([]);
  });

  it('selects every value under a wildcard, with the object holding it', () => {
    const body = { crypto_accounts: [{ balance: '1' }, { balance: 2 }], fiat_accounts: [] };
    expect(select(body, '/crypto_accounts/*/balance').map((found) => found.pointer)).toEqual([
      '/crypto_accounts/0/balance',
      '/crypto_accounts/1/balance',
    ]);
    expect(select(body, '/missing/*')).toEqual([]);
  });

  it('finds a JSON number where a decimal string is described, naming its pointer', () => {
    const finding = judgeValues(
      [{ kind: 'decimal-string', at: ['/crypto_accounts/*/balance'] }],
      { crypto_accounts: [{ balance: '1.5' }, { balance: 2 }] },
      undefined,
      context,
    );
    expect(finding).toEqual({
      checked: 2,
      problems: ['/crypto_accounts/1/balance is 2, not a decimal string'],
    });
  });

  it('tells Unix milliseconds from seconds', () => {
    const check = [{ kind: 'unix-seconds', at: ['/created_at'] }];
    expect(judgeValues(check, { created_at: 1795493737 }, undefined, context).problems).toEqual([]);
    expect(judgeValues(check, { created_at: 1795493737000 }, undefined, context).problems).toEqual([
      '/created_at is 1795493737000, not Unix seconds (it reads as milliseconds)',
    ]);
  });

  it('fills a template from the holder, the user context, the product and any base origin', () => {
    const push = [
      {
        kind: 'template',
        at: ['/a/*/push_channel'],
        template: 'user_{user.user_id}_account_{currency|lower}',
      },
    ];
    const accounts = {
      a: [
        { currency: 'BTC', push_channel: 'user_1001_account_btc' },
        { currency: 'JPY', push_channel: 'user_1001_account_JPY' },
      ],
    };
    expect(judgeValues(push, accounts, undefined, context).problems).toEqual([
      expect.stringMatching(/^\/a\/1\/push_channel is "user_1001_account_JPY", not of the shape/),
    ]);
    const href = [
      {
        kind: 'template',
        at: ['/api_challenge_href'],
        template: '{base_url}/oauth/{oauth_request_private_id}/approve',
      },
    ];
    const oauth = {
      oauth_request_private_id: 'p-1',
      api_challenge_href: 'https://exchange.example/oauth/p-1/approve',
    };
    expect(judgeValues(href, oauth, undefined, context)).toEqual({ checked: 1, problems: [] });
    // A value the run has not read (no user context) is not judged at all.
    expect(judgeValues(push, accounts, undefined, { ...context, user: undefined }).checked).toBe(0);
  });

  it('checks that the forms of expires name one instant, and that an echo is the request value', () => {
    const instant = [{ kind: 'one-instant', at: ['/expires'] }];
    const expires = { unix_ms: 1795493757864, iso8601: '2026-11-24T04:15:57.864Z', ttl_ms: 20000 };
    expect(judgeValues(instant, { expires }, undefined, context).problems).toEqual([]);
    expect(
      judgeValues(
        instant,
        { expires: { ...expires, iso8601: '2026-11-24T05:15:57.864Z' } },
        undefined,
        context,
      ).problems,
    ).toEqual([
      '/expires: iso8601 "2026-11-24T05:15:57.864Z" is 3600000 ms away from unix_ms 1795493757864',
    ]);
    const echo = [
      { kind: 'echoes', at: ['/payload/client_ref'], request: '/client_ref', absent: null },
    ];
    expect(judgeValues(echo, { payload: { client_ref: null } }, '{}', context).problems).toEqual(
      [],
    );
    expect(
      judgeValues(echo, { payload: { client_ref: 'b' } }, '{"client_ref":"a"}', context).problems,
    ).toEqual(['/payload/client_ref is "b", not "a" as the request gave at /client_ref']);
  });

  it('judges a page newest first by created_at, then by id within one second', () => {
    const newest = [{ kind: 'newest-first', at: ['/models'] }];
    const page = (...rows: [number, number][]) => ({
      models: rows.map(([id, created_at]) => ({ id, created_at })),
    });
    const judged = (body: unknown) => judgeValues(newest, body, undefined, context).problems;
    expect(judged(page([9, 1700000002], [8, 1700000001], [7, 1700000001]))).toEqual([]);
    expect(judged(page([7, 1700000001], [8, 1700000001]))).toEqual([
      '/models/1 (id 8 at 1700000001) is newer than /models/0 (id 7 at 1700000001): not newest first',
    ]);
    expect(judged(page([9, 1700000001], [3, 1700000002]))).toEqual([
      '/models/1 (id 3 at 1700000002) is newer than /models/0 (id 9 at 1700000001): not newest first',
    ]);
    expect(judged(page([9, 1700000001]))).toEqual([]);
    // A record without a time (a loan bid) is ordered by its id.
    expect(judged({ models: [{ id: 4 }, { id: 5 }] })).toEqual([
      '/models/1 (id 5) is newer than /models/0 (id 4): not newest first',
    ]);
    expect(judged({ models: [{ id: 5 }, { id: 4 }] })).toEqual([]);
  });

  it('judges the order of a ladder by the first element of each pair, as decimals', () => {
    const ascending = [{ kind: 'ascending', at: ['/bids'] }];
    expect(
      judgeValues(
        ascending,
        {
          bids: [
            ['0.0002', '1'],
            ['0.001', '2'],
          ],
        },
        undefined,
        context,
      ).problems,
    ).toEqual([]);
    expect(
      judgeValues(
        ascending,
        {
          bids: [
            ['0.001', '1'],
            ['0.0002', '2'],
          ],
        },
        undefined,
        context,
      ).problems,
    ).toEqual(['/bids/1 ("0.0002") comes after "0.001": not ascending']);
  });
});
