import type { Socket } from 'node:net';

// What Node's HTTP parser refuses never reaches a route; its default answer carries no body.
const reasons: Record<string, [status: number, text: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'The request line and headers exceed 16 KiB: shorten the path, the query or a header',
  ],
  // The header or request timeout of the server (connection-bounds.ts) ran out.
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'The request did not arrive in time: send its headers once connected, and its body without pause',
  ],
};

/**
 * Answers a request the HTTP parser could not read with a JSON reason, as every other refusal
 * has one; a connection that is already gone is only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, text, message] = reasons[error.code ?? ''] ?? [
    400,
    'Bad Request',
    'The request is not valid HTTP',
  ];
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
