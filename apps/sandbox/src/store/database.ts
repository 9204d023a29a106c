/** What domain code needs of a database: PGlite and node-postgres both fit this shape. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}
