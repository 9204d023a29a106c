import exchangeSpec from '@exchange-kit/spec/exchange.openapi.json' with { type: 'json' };
import partnerSpec from '@exchange-kit/spec/partner.openapi.json' with { type: 'json' };

/** The parts of a bundled OpenAPI document the HTTP layer reads. */
export interface SpecSchema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, SpecSchema>;
  additionalProperties?: boolean | SpecSchema;
  items?: SpecSchema;
  oneOf?: SpecSchema[];
  anyOf?: SpecSchema[];
  allOf?: SpecSchema[];
  maxProperties?: number;
}

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: SpecSchema;
}

type SecurityRequirement = Record<string, string[]>;

export interface SpecOperation {
  operationId: string;
  parameters?: (SpecParameter | { $ref: string })[];
  requestBody?: {
    required?: boolean;
    $ref?: string;
    content?: Record<string, { schema?: SpecSchema }>;
  };
  responses: Record<string, unknown>;
  security?: SecurityRequirement[];
  'x-auth-payload'?: string;
}

/** The bounds of a whole request body, `info.x-request-limits` of each spec. */
export interface RequestLimits {
  'max-body-bytes': number;
  'max-nesting-depth': number;
}

export interface SpecDocument {
  info: { 'x-request-limits': RequestLimits };
  security?: SecurityRequirement[];
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

/** Which API an operation belongs to: its request schemas live in that API's client package. */
export type Api = 'exchange' | 'partner';

export const specs: Record<Api, SpecDocument> = {
  exchange: exchangeSpec as unknown as SpecDocument,
  partner: partnerSpec as unknown as SpecDocument,
};

/** Follows a local `#/components/...` reference of `spec` until it reaches a value. */
export function resolve<T>(spec: SpecDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let depth = 0; depth < 16; depth++) {
    const ref = (current as { $ref?: unknown }).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], spec);
  }
  throw new Error('Reference chain too deep');
}
