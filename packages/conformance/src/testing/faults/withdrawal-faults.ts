import type { Fault, ProxiedRequest, ProxiedResponse } from '../fault-proxy.js';
import {
  is,
  listedToTwoPlaces,
  type Row,
  status,
  withBody,
  withJson,
  withoutQuery,
} from './proxied.js';

/** A state of the withdrawal lists read as another: the move it stands for never happened. */
const withdrawalListed =
  (from: string, to: string) => (request: ProxiedRequest, response: ProxiedResponse) =>
    is(request, 'listCryptoWithdrawals', 'listFiatWithdrawals') && response.status === 200
      ? { ...response, body: response.body.replaceAll(`"state":"${from}"`, `"state":"${to}"`) }
      : response;

export const withdrawalFaults: Fault[] = [
  {
    name: 'a withdrawal holds twice the amount asked',
    covers: 'WITHDRAWAL-RESERVES',
    // Twice half the minimum is the minimum: taken, not refused.
    alsoFails: ['WITHDRAWAL-BELOW-MINIMUM'],
    request: (request) =>
      is(request, 'createCryptoWithdrawal', 'createFiatWithdrawal')
        ? withBody(request, (body) => {
            const fields = (body.crypto_withdrawal ?? body.withdrawal) as Row | undefined;
            if (fields) fields.amount = String(Number(fields.amount) * 2);
            return body;
          })
        : request,
  },
  {
    name: 'a new withdrawal shows no fee, though it holds one',
    covers: 'WITHDRAWAL-RESERVES',
    response: (request, response) =>
      is(request, 'createCryptoWithdrawal', 'createFiatWithdrawal') && response.status === 200
        ? withJson(response, (body) => ({ ...(body as Row), withdrawal_fee: '0' }))
        : response,
  },
  {
    name: 'the crypto withdrawals listed by state hold one of another state',
    covers: 'WITHDRAWAL-RESERVES',
    alsoFails: ['WITHDRAWAL-PROCESSING', 'WITHDRAWAL-PROCESSED', 'WITHDRAWAL-DECLINED'],
    testControl: true,
    response: (request, response) => {
      const state = new URLSearchParams(request.path.split('?')[1]).get('state');
      return is(request, 'listCryptoWithdrawals') && state && response.status === 200
        ? withJson(response, (page) => {
            const models = ((page as Row).models as Row[]) ?? [];
            const first = models[0];
            const other = state === 'cancelled' ? 'pending' : 'cancelled';
            return first
              ? { ...(page as Row), models: [...models, { ...first, id: 0, state: other }] }
              : page;
          })
        : response;
    },
  },
  {
    name: 'a deposit is listed with its amount cut to two places',
    covers: 'DEPOSIT-CREDITS',
    testControl: true,
    response: listedToTwoPlaces('listFundInfos', 'amount'),
  },
  {
    name: 'the deposits are listed whatever currency is asked',
    covers: 'DEPOSIT-CREDITS',
    testControl: true,
    request: withoutQuery('listFundInfos', 'currency'),
  },
  {
    name: 'the reserved balance details leave out the withdrawals',
    covers: 'WITHDRAWAL-RESERVES',
    response: (request, response) =>
      is(request, 'getReservedBalanceDetails') && response.status === 200
        ? withJson(response, (body) => ({
            ...(body as Row),
            details: ((body as Row).details as Row[]).filter(
              (detail) => detail.holder_type !== 'withdrawal',
            ),
          }))
        : response,
  },
  {
    name: 'a withdrawal that is no longer pending is cancelled all the same',
    covers: 'WITHDRAWAL-CANCEL-ONLY-PENDING',
    response: status(422, 200, 'cancelCryptoWithdrawal', 'cancelFiatWithdrawal'),
  },
  {
    name: 'a withdrawal the exchange ended is cancelled all the same',
    covers: 'WITHDRAWAL-CANCEL-ONLY-PENDING',
    testControl: true,
    response: (request, response) =>
      is(request, 'cancelCryptoWithdrawal', 'cancelFiatWithdrawal') &&
      response.status === 422 &&
      /"state":\["(processed|declined)"\]/.test(response.body)
        ? { ...response, status: 200 }
        : response,
  },
  {
    name: 'a withdrawal the exchange took up still reads pending',
    covers: 'WITHDRAWAL-PROCESSING',
    testControl: true,
    response: withdrawalListed('processing', 'pending'),
  },
  {
    name: 'a processed withdrawal still reads processing',
    covers: 'WITHDRAWAL-PROCESSED',
    testControl: true,
    response: withdrawalListed('processed', 'processing'),
  },
  {
    name: "a processed withdrawal's fee is posted as part of the withdrawal",
    covers: 'WITHDRAWAL-PROCESSED',
    testControl: true,
    response: (request, response) =>
      is(request, 'listBalanceHistory') && response.status === 200
        ? {
            ...response,
            body: response.body.replaceAll(
              '"source_action":"withdrawal_fee"',
              '"source_action":"withdrawal"',
            ),
          }
        : response,
  },
  {
    name: "a withdrawal under the currency's minimum is raised to it and taken",
    covers: 'WITHDRAWAL-BELOW-MINIMUM',
    ...(() => {
      // The minimums the currencies were last listed with.
      const minimums = new Map<string, number>();
      return {
        response: (request: ProxiedRequest, response: ProxiedResponse) => {
          if (is(request, 'listCurrencies') && response.status === 200) {
            for (const currency of (JSON.parse(response.body) as Row[]) ?? []) {
              minimums.set(String(currency.currency), Number(currency.minimum_withdrawal));
            }
          }
          return response;
        },
        request: (request: ProxiedRequest) =>
          is(request, 'createCryptoWithdrawal', 'createFiatWithdrawal')
            ? withBody(request, (body) => {
                const fields = (body.crypto_withdrawal ?? body.withdrawal) as Row | undefined;
                const minimum = minimums.get(String(fields?.currency));
                if (fields && minimum !== undefined && Number(fields.amount) < minimum) {
                  fields.amount = String(minimum);
                }
                return body;
              })
            : request,
      };
    })(),
  },
  {
    name: 'a declined withdrawal still reads pending',
    covers: 'WITHDRAWAL-DECLINED',
    testControl: true,
    response: withdrawalListed('declined', 'pending'),
  },
];
