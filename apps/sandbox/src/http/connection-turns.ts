import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Turn {
  over: boolean;
  answered: Promise<void>;
}

/**
 * The turns of the requests pipelined on each HTTP/1.1 connection. They are answered in the
 * order they came; they must be decided in that order too. A request whose body is still being
 * read would otherwise be decided after a later one that has none, whose nonce then runs ahead
 * of it, or which cancels what it has not seen. A request's turn is over once it is answered
 * or its connection is gone; the next one waits for it only when it came before that.
 */
export class ConnectionTurns {
  readonly #last = new WeakMap<Socket, Turn>();
  readonly #before = new WeakMap<IncomingMessage, Turn>();

  /** Takes the turn of `request` on its connection, over once `response` is done. */
  take(request: IncomingMessage, response: ServerResponse): void {
    const before = this.#last.get(request.socket);
    if (before && !before.over) this.#before.set(request, before);
    let end = () => {};
    const turn: Turn = {
      over: false,
      answered: new Promise((resolve) => {
        end = resolve;
      }),
    };
    // Emitted once the response is sent, or its connection closed before it was.
    response.once('close', () => {
      turn.over = true;
      end();
    });
    this.#last.set(request.socket, turn);
  }

  /** What `request` waits for before it is decided: the one before it, if not yet answered. */
  before(request: IncomingMessage): Promise<void> | undefined {
    const turn = this.#before.get(request);
    return turn && !turn.over ? turn.answered : undefined;
  }
}
