import { SignJWT } from 'jose';

const encoder = new TextEncoder();

/** HS256 JWT through jose and Web Crypto, for browsers and edge runtimes. */
export async function signJwt(payload: object, secret: string): Promise<string> {
  return new SignJWT({ ...payload })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(encoder.encode(secret));
}
