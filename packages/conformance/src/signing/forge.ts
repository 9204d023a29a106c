import { createHmac } from 'node:crypto';

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A JWT exactly as the attacks need it: any header, any payload, signed HS256 or HS512 with
 * any secret, or not signed at all (alg none).
 */
export function forgeJwt(
  payload: object,
  options: { secret?: string; alg?: 'HS256' | 'HS512' | 'none' } = {},
): string {
  const alg = options.alg ?? 'HS256';
  const input = `${encode({ alg, typ: 'JWT' })}.${encode(payload)}`;
  if (alg === 'none') return `${input}.`;
  const hash = alg === 'HS512' ? 'sha512' : 'sha256';
  return `${input}.${createHmac(hash, options.secret ?? '')
    .update(input)
    .digest('base64url')}`;
}

function jwtPart(jwt: string, index: number): Record<string, unknown> | undefined {
  try {
    const text = Buffer.from(jwt.split('.')[index] ?? '', 'base64url').toString('utf8');
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The payload of a JWT, unverified: for reports and for the attacks that reuse one. */
export function jwtPayload(jwt: string): Record<string, unknown> | undefined {
  return jwtPart(jwt, 1);
}

/** The protected header of a JWT, unverified. */
export function jwtHeader(jwt: string): Record<string, unknown> | undefined {
  return jwtPart(jwt, 0);
}
