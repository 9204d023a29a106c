/** The `{models, current_page, total_pages}` of the paged lists: page `page` of `limit` rows. */
export function pageOf<Row, Model>(
  rows: readonly Row[],
  limit: number,
  page: number,
  view: (row: Row) => Model,
) {
  return {
    models: rows.slice((page - 1) * limit, page * limit).map(view),
    current_page: page,
    total_pages: Math.ceil(rows.length / limit),
  };
}
