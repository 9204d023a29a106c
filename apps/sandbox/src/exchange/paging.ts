/** The `{models, current_page, total_pages}` of the paged lists: page `page` of `limit` rows. */
export function pageOf<Row, Model>(
  rows: readonly Row[],
  limit: number,
  page: number,
  view: (row: Row) => Model,
) {
  return pageFrom(rows.length, rows.slice((page - 1) * limit, page * limit).map(view), limit, page);
}

/** The same shape for a page read already: its `models`, of `total` rows in all. */
export function pageFrom<Model>(total: number, models: Model[], limit: number, page: number) {
  return { models, current_page: page, total_pages: Math.ceil(total / limit) };
}
