import { jwtHeader, jwtPayload } from '../forge.js';
import type { RecordedCall } from '../outcome.js';

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

// Secrets never reach a report: a JWT is shown by its payload only, and session secrets are masked.
function redactHeader(name: string, value: string): string {
  const jwt = value.replace(/^Bearer\s+/i, '');
  const payload = jwtPayload(jwt);
  if (!payload) return '<redacted>';
  const prefix = value === jwt ? '' : 'Bearer ';
  const alg = String(jwtHeader(jwt)?.alg ?? '?');
  const secret = name.toLowerCase() === 'authorization' ? 'session secret' : 'token secret';
  return `${prefix}<JWT ${alg} ${JSON.stringify(payload)}, signed with the ${secret}>`;
}

/** Masks values of fields whose name says they are secret, in a JSON text. */
export function redactSecrets(text: string): string {
  return text.replace(/("[^"]*secret[^"]*"\s*:\s*)"[^"]*"/gi, '$1"<redacted>"');
}

/** A curl command that sends the call again, secrets redacted (re-sign the JWT to run it). */
export function curlOf(call: RecordedCall): string {
  const parts = [`curl -i -X ${call.method} ${quote(call.url)}`];
  for (const [name, value] of Object.entries(call.requestHeaders)) {
    const shown = /^(x-service-auth|authorization)$/i.test(name)
      ? redactHeader(name, value)
      : value;
    parts.push(`-H ${quote(`${name}: ${shown}`)}`);
  }
  if (call.requestBody !== undefined)
    parts.push(`--data-raw ${quote(redactSecrets(call.requestBody))}`);
  return parts.join(' \\\n  ');
}
