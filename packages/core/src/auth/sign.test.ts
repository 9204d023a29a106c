import fc from 'fast-check';
import { jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { signJwt as signNode } from './sign-node.js';
import { signJwt as signWeb } from './sign-web.js';

const encoder = new TextEncoder();
const joseSign = (payload: Record<string, unknown>, secret: string) =>
  new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(encoder.encode(secret));

const payloads = fc.record(
  {
    token_id: fc.string(),
    path: fc.string({ unit: 'binary' }),
    nonce: fc.nat(),
    delegate_path: fc.string(),
    oauth_request_public_id: fc.uuid(),
  },
  { requiredKeys: ['token_id', 'path'] },
);

describe('HS256 signers', () => {
  it('node signer is byte-identical to jose for any payload and secret', async () => {
    await fc.assert(
      fc.asyncProperty(
        payloads,
        fc.oneof(
          // ASCII secrets (API tokens are) are padded as text, any other as bytes.
          fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 64 }),
          fc.string({ unit: 'binary', minLength: 1 }),
          // Around and past a SHA-256 block (64 bytes), beyond which a secret is hashed first.
          fc.string({ unit: 'binary', minLength: 60, maxLength: 200 }),
        ),
        async (payload, secret) => {
          expect(await signNode(payload, secret)).toBe(await joseSign(payload, secret));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('web signer is byte-identical to the node signer', async () => {
    await fc.assert(
      fc.asyncProperty(payloads, fc.string({ minLength: 1 }), async (payload, secret) => {
        expect(await signWeb(payload, secret)).toBe(await signNode(payload, secret));
      }),
      { numRuns: 100 },
    );
  });

  it('produces a token jose verifies with HS256 only, and rejects with the wrong secret', async () => {
    const token = await signNode(
      { token_id: '42', path: '/orders?product_id=1', nonce: 1 },
      's3cret',
    );
    const { payload, protectedHeader } = await jwtVerify(token, encoder.encode('s3cret'), {
      algorithms: ['HS256'],
    });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ token_id: '42', path: '/orders?product_id=1', nonce: 1 });
    await expect(
      jwtVerify(token, encoder.encode('other'), { algorithms: ['HS256'] }),
    ).rejects.toThrow(/signature verification failed/);
  });
});
