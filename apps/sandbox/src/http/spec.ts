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

type SecurityRequirement = Record<string, string[]>;

/** An operation object of a bundled spec, as the HTTP layer reads it. */
export interface OperationObject {
  operationId: string;
  requestBody?: {
    required?: boolean;
    $ref?: string;
    content?: Record<string, { schema?: SpecSchema }>;
  };
  responses: Record<string, unknown>;
  security?: SecurityRequirement[];
  'x-auth-payload'?: string;
}
