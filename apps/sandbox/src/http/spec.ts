import exchangeSpec from '@exchange-kit/contract/exchange/openapi.json' with { type: 'json' };
import partnerSpec from '@exchange-kit/contract/partner/openapi.json' with { type: 'json' };
import type { OpenApiDocument } from '@exchange-kit/contract/spec-reader';

/** The parts of a bundled OpenAPI document the HTTP layer reads. */
export interface SpecSchema {
  type?: string | string[];
  $ref?: string;
}

type SecurityRequirement = Record<string, string[]>;

export interface SpecOperation {
  operationId: string;
  requestBody?: { required?: boolean; $ref?: string };
  responses: Record<string, unknown>;
  security?: SecurityRequirement[];
  'x-auth-payload'?: string;
}

export type SpecDocument = OpenApiDocument;

/** Which API an operation belongs to. */
export type Api = 'exchange' | 'partner';

export const specs: Record<Api, SpecDocument> = {
  exchange: exchangeSpec as unknown as SpecDocument,
  partner: partnerSpec as unknown as SpecDocument,
};
