/**
 * Every row of a paged list, fetching page after page as the loop asks for more. Pages count
 * from the newest row, so one added while the loop runs pushes the older ones a place on, onto
 * the next page: a row already yielded, known by `keyOf` (its `id` unless a list shows one
 * record in more than one row), is not yielded again.
 */
export async function* everyRow<Row>(
  pageOf: (page: number) => Promise<{ models: Row[]; total_pages: number | string }>,
  keyOf: (row: Row) => unknown = (row) => (row as { id?: unknown }).id,
): AsyncGenerator<Row, void, undefined> {
  const yielded = new Set<unknown>();
  for (let page = 1; ; page++) {
    const list = await pageOf(page);
    for (const row of list.models) {
      const key = keyOf(row);
      if (key !== undefined) {
        if (yielded.has(key)) continue;
        yielded.add(key);
      }
      yield row;
    }
    if (list.models.length === 0 || page >= Number(list.total_pages)) return;
  }
}
