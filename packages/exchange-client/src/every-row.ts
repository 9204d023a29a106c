/** Every row of a paged list, fetching page after page as the loop asks for more. */
export async function* everyRow<Row>(
  pageOf: (page: number) => Promise<{ models: Row[]; total_pages: number | string }>,
): AsyncGenerator<Row, void, undefined> {
  for (let page = 1; ; page++) {
    const list = await pageOf(page);
    yield* list.models;
    if (list.models.length === 0 || page >= Number(list.total_pages)) return;
  }
}
