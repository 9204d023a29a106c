import { signServiceAuth, signSessionAuth } from '@exchange-kit/core/auth';

export interface JwtSample {
  header: unknown;
  payload: unknown;
}

const decode = (jwt: string): JwtSample => {
  const [header = '', payload = ''] = jwt.split('.');
  const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  return { header: json(header), payload: json(payload) };
};

/** JWTs signed by @exchange-kit/core/auth with the sandbox's demo token, decoded, by payload schema. */
export async function authSamples(): Promise<Record<string, JwtSample>> {
  const token = { tokenId: '3141592', tokenSecret: 'sandbox-demo-secret-not-for-production-use' };
  const oauth = {
    publicId: '0f6c1d3e-2b4a-4c5d-8e9f-a0b1c2d3e4f5',
    privateId: '811603ef-12d0-4235-bfd2-9a58b2cd2119',
  };
  return {
    ServiceAuthPayload: decode(await signServiceAuth(token, { path: '/orders?product_id=1' })),
    OAuthDelegatedPayload: decode(await signServiceAuth(token, { path: '/user/context', oauth })),
    PartnerDelegatedPayload: decode(
      await signServiceAuth(token, {
        path: '/api/v1/partner/pk_sandbox_demo/intent',
        delegate: true,
      }),
    ),
    SessionAuthPayload: decode(
      await signSessionAuth(
        {
          sessionId: 'ca876623-0a4f-4abd-92e0-14ea7075ca1e',
          sessionSecret: '0eb2ba30-764a-46b3-98b9-68b0c273adff',
        },
        '/api/v1/transaction/status/6c1e6b0e-5d2f-4a53-9a57-1f0e0b4a3c2d',
      ),
    ),
  };
}
