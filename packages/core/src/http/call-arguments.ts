/** The options every call takes last, as the sender reads them. */
const perCallOptions: readonly string[] = ['signal', 'timeoutMs', 'retry'];

/**
 * What a typed call would not compile with, and plain JavaScript passes all the same: a query
 * parameter the operation does not take would be sent and ignored by the server, an option
 * nobody reads would be dropped. Either fails here, before anything is sent, naming the key.
 * A key whose value is undefined is left alone, as the query serialiser leaves it out.
 */
export function refuseUnknownArguments(
  operationId: string,
  query: readonly string[],
  input: { query?: unknown },
  options: object | undefined,
): void {
  const unknown = (given: unknown, known: readonly string[]) =>
    given
      ? Object.entries(given).find(([key, value]) => value !== undefined && !known.includes(key))
      : undefined;
  const wrongQuery = unknown(input.query, query)?.[0];
  if (wrongQuery !== undefined) {
    throw new TypeError(
      `${operationId}: unknown query parameter ${wrongQuery} (it takes ${query.join(', ') || 'none'})${
        perCallOptions.includes(wrongQuery) ? '; per-call options go in the last argument' : ''
      }`,
    );
  }
  const wrongOption = unknown(options, perCallOptions)?.[0];
  if (wrongOption !== undefined) {
    throw new TypeError(
      `${operationId}: unknown option ${wrongOption} (a call takes ${perCallOptions.join(', ')})`,
    );
  }
}
