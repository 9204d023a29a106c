/** How a failing request reads in a test's output: enough to send it again by hand. */
import type { FuzzRequest } from './fuzz-requests.js';

/** Long texts (5,000 brackets, a 64 KiB padding) shown by their ends and their length. */
export function shorten(text: string, keep = 160): string {
  if (text.length <= keep * 2) return text;
  return `${text.slice(0, keep)}…(${text.length} characters in all)…${text.slice(-keep)}`;
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Escapes what a terminal would hide or mangle: NUL, lone surrogates, other controls. */
function visible(text: string): string {
  let shown = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const paired =
      (isHigh(code) && isLow(text.charCodeAt(index + 1))) ||
      (isLow(code) && isHigh(text.charCodeAt(index - 1)));
    const hidden = code < 0x20 || code === 0x7f || code === 0x200b || code === 0x202e;
    shown +=
      hidden || ((isHigh(code) || isLow(code)) && !paired)
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : text[index];
  }
  return shown;
}

const signatures: Record<FuzzRequest['signing'], string> = {
  service: 'X-Service-Auth: <JWT of the demo token for this path>',
  delegated: 'X-Service-Auth: <delegated JWT of the demo token, delegate_path this path>',
  session: 'Authorization: Bearer <JWT of a session of the demo partner for this path>',
  none: '',
};

export function describeRequest(request: FuzzRequest): string {
  const lines = [
    `${request.method} ${shorten(visible(request.url))}  (${request.api}: ${request.operationId})`,
  ];
  if (request.signing !== 'none' && request.credential !== 'anonymous') {
    const signature = signatures[request.signing];
    lines.push(
      request.credential === 'forged' ? `${signature}, signed with a wrong secret` : signature,
    );
  }
  if (request.contentType !== undefined)
    lines.push(`Content-Type: ${visible(request.contentType)}`);
  if (request.body !== undefined) lines.push('', shorten(visible(request.body)));
  return lines.join('\n');
}
