/**
 * The docs site (apps/docs) generates a page of every requirement, one row each, anchored by
 * this; the HTML report links each requirement to its row.
 */
export function requirementAnchor(id: string): string {
  return id.toLowerCase();
}

/** Where `pnpm --filter @exchange-kit/docs serve` serves the docs site; `--docs-url` points elsewhere. */
export const defaultDocsUrl = 'http://127.0.0.1:4173/';

/** The docs row of a requirement, on the docs site at `docsUrl`. */
export function requirementDocsUrl(id: string, docsUrl: string = defaultDocsUrl): string {
  const base = docsUrl.endsWith('/') ? docsUrl : `${docsUrl}/`;
  return new URL(`reference/conformance.html#${requirementAnchor(id)}`, base).href;
}
