/**
 * The bundled specs as documents, one per interface, with the names every reader of them
 * uses. Read them with `spec-reader`.
 */
import exchange from './generated/exchange.openapi.json' with { type: 'json' };
import partner from './generated/partner.openapi.json' with { type: 'json' };
import type { OpenApiDocument } from './spec-reader.js';

/** The two interfaces, as their specs and their clients name them. */
export const apiNames = ['exchange', 'partner'] as const;
export type ApiName = (typeof apiNames)[number];

/** The bounds of a whole request body: `info.x-request-limits` of each spec. */
export interface RequestLimits {
  'max-body-bytes': number;
  'max-nesting-depth': number;
}

/** A bundled spec: local references only, and the request limits in its `info`. */
export interface BundledDocument extends OpenApiDocument {
  info: { title: string; version: string; description?: string; 'x-request-limits': RequestLimits };
}

export const bundledDocuments: Readonly<Record<ApiName, BundledDocument>> = {
  exchange: exchange as unknown as BundledDocument,
  partner: partner as unknown as BundledDocument,
};
