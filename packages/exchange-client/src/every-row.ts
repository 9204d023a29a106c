/**
 * Every row of a paged list, fetching page after page as the loop asks for more. Pages count
 * from the newest row, so one added while the loop runs pushes the older ones a place on, onto
 * the next page: a row already yielded, known by its `id`, is not yielded again.
 */
export async function* everyRow<Row>(
  pageOf: (page: number) => Promise<{ models: Row[]; total_pages: number | string }>,
): AsyncGenerator<Row, void, undefined> {
  const yielded = new Set<unknown>();
  for (let page = 1; ; page++) {
    const list = await pageOf(page);
    for (const row of list.models) {
      const id = (row as { id?: unknown }).id;
      if (id !== undefined) {
        if (yielded.has(id)) continue;
        yielded.add(id);
      }
      yield row;
    }
    if (list.models.length === 0 || page >= Number(list.total_pages)) return;
  }
}
