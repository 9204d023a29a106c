/** What code that runs SQL needs of a database: PGlite and node-postgres both fit this shape. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
  /**
   * The rows of `select` in COPY's text format, where the store gives them faster so: PGlite
   * hands each value of a query's result to JavaScript one by one, which took most of a start
   * on a store of some thousand orders.
   */
  copyOut?(select: string): Promise<string>;
}
