import type { RecordedCall } from '../engine/outcome.js';
import { jwtHeader, jwtPayload } from '../signing/forge.js';
import { sessionSignCommand, signCommand } from '../signing/sign.js';

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

// The token secret never reaches a report: a JWT that cannot be signed anew is shown by its
// payload only, and fields named secret in bodies are masked.
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

/**
 * A curl command that sends the call again as it is, pasted into a shell where the token
 * secret is in EXCHANGE_CONFORMANCE_TOKEN_SECRET: a JWT signed with it is signed anew by
 * `exchange-conformance sign`, a forged or replayed one is shown as it was sent. A session JWT of
 * the suite's own session calls is signed anew too, with that session's secret written in the
 * line; one the suite forged (an attack) stays redacted.
 */
export function curlOf(call: RecordedCall): string {
  if (call.curl !== undefined) return call.curl;
  const parts = [`curl -i -X ${call.method} ${quote(call.url)}`];
  for (const [name, value] of Object.entries(call.requestHeaders)) {
    if (/^x-service-auth$/i.test(name) && call.signing && call.signing !== 'as-sent') {
      parts.push(`-H "${name}: $(${signCommand(call.signing)})"`);
      continue;
    }
    if (/^authorization$/i.test(name) && call.sessionSigning) {
      parts.push(`-H "${name}: Bearer $(${sessionSignCommand(call.sessionSigning)})"`);
      continue;
    }
    const shown =
      /^x-service-auth$/i.test(name) && call.signing === 'as-sent'
        ? value
        : /^(x-service-auth|authorization)$/i.test(name)
          ? redactHeader(name, value)
          : value;
    parts.push(`-H ${quote(`${name}: ${shown}`)}`);
  }
  if (call.requestBody !== undefined)
    parts.push(`--data-raw ${quote(redactSecrets(call.requestBody))}`);
  return parts.join(' \\\n  ');
}
