import { apiNames } from '@exchange-kit/contract/documents';
import { operationCalls } from './calls.js';
import { coverageOf, renderConformance } from './conformance.js';
import { renderEvents } from './events.js';
import {
  operations,
  renderApiIndex,
  renderAuthentication,
  renderOperation,
  renderSchemas,
} from './openapi.js';
import { renderStateTables } from './state-tables.js';

/** Every page generated from spec/ and the conformance catalog, by path under site/. */
export function generatedPages(
  authSamples: Parameters<typeof renderAuthentication>[0] = {},
): Record<string, string> {
  const pages: Record<string, string> = {
    'reference/state-tables.md': renderStateTables(),
    'reference/conformance.md': renderConformance(),
    'reference/authentication.md': renderAuthentication(authSamples),
    'reference/events.md': renderEvents(),
  };
  for (const api of apiNames) {
    pages[`reference/${api}/index.md`] = renderApiIndex(api);
    pages[`reference/${api}/schemas.md`] = renderSchemas(api);
  }
  const calls = operationCalls();
  for (const op of operations()) {
    pages[`reference/${op.api}/${op.operationId}.md`] = renderOperation(
      op,
      coverageOf(op.operationId),
      calls.get(op.operationId),
    );
  }
  return pages;
}
