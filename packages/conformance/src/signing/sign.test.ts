import { operationTable as exchangeTable } from '@exchange-kit/contract/exchange';
import { operationTable as partnerTable } from '@exchange-kit/contract/partner';
import { callSigningOf, serviceAuthenticator, serviceAuthJwt } from '@exchange-kit/core/auth';
import { describe, expect, it } from 'vitest';
import { SpecClient } from '../engine/context.js';
import { fillPath, operations } from '../engine/spec.js';
import { jwtPayload } from './forge.js';
import { delegatedOperation, signFor } from './sign.js';

const token = { tokenId: '42', tokenSecret: 'conformance-and-core' };
const client = new SpecClient({
  exchangeUrl: 'http://127.0.0.1:1',
  partnerUrl: 'http://127.0.0.1:1',
  publicApiKey: 'pk',
  ...token,
});
const nonceOf = (jwt: string) => jwtPayload(jwt)?.nonce as number;

/** Every operation a token signs, with a concrete path and query to sign. */
const tokenSigned = [...operations.values()]
  .filter((op) => op.signing === 'service' || op.signing === 'delegated')
  .map((op) => ({ op, path: `${fillPath(op.path.replace(/\{[^}]+\}/g, '7'))}?limit=1` }));

describe('one signer for core and conformance', () => {
  it('signs every operation as the clients do, JWT for JWT', async () => {
    const kinds = new Set(tokenSigned.map(({ op }) => op.signing));
    expect([...kinds].sort()).toEqual(['delegated', 'service']);
    for (const { op, path } of tokenSigned) {
      const delegate = op.signing === 'delegated';
      const headers = await client.authHeaders(op.operationId, { kind: 'spec' }, path);
      const suite = headers['X-Service-Auth'] as string;
      // A client's middleware signs the same call with the same nonce the same way.
      const sent = new Headers();
      await serviceAuthenticator(token)({ headers: sent }, path, { delegate });
      const clientJwt = sent.get('X-Service-Auth') as string;
      const { nonce: _clientNonce, ...clientClaims } = jwtPayload(clientJwt) ?? {};
      const { nonce: _suiteNonce, ...suiteClaims } = jwtPayload(suite) ?? {};
      expect(suiteClaims, op.operationId).toEqual(clientClaims);
      // And the CLI's `sign`, given that nonce, gives back the very JWT the run sent.
      const again = signFor(
        { tokenId: token.tokenId, path, nonce: nonceOf(suite), ...(delegate ? { delegate } : {}) },
        token.tokenSecret,
      );
      expect(again, op.operationId).toBe(suite);
      expect(delegatedOperation(op.method, path), op.operationId).toBe(delegate);
    }
  });

  it('signs an OAuth call and a call without nonce as core does', async () => {
    const oauth = { publicId: 'pub', privateId: 'priv' };
    const core = await serviceAuthJwt(token, { path: '/user/context', oauth });
    const suite = signFor(
      {
        tokenId: token.tokenId,
        path: '/user/context',
        oauthPublicId: oauth.publicId,
        oauthPrivateId: oauth.privateId,
        nonce: nonceOf(core),
      },
      token.tokenSecret,
    );
    expect(suite).toBe(core);
    const withoutNonce = jwtPayload(signFor({ ...token, path: '/orders', nonce: null }, 'x'));
    const { iat, jti, ...rest } = withoutNonce ?? {};
    expect(rest).toEqual({ token_id: '42', path: '/orders' });
    expect(typeof iat === 'number' && typeof jti === 'string').toBe(true);
  });

  it('takes how each operation is signed from the contract operations table', () => {
    for (const op of operations.values()) {
      expect(op.signing, op.operationId).toBe(callSigningOf(tableRowOf(op.operationId)));
    }
  });
});

function tableRowOf(operationId: string) {
  const tables: Record<string, { security: string | null; authPayload: string | null }> = {
    ...exchangeTable,
    ...partnerTable,
  };
  const row = tables[operationId];
  if (!row) throw new Error(`${operationId} is in no operations table`);
  return row;
}
