/**
 * The API reference, rendered from the bundled specs: one page per operation, one page of
 * schemas per interface, and the authentication payloads.
 */
import { type ApiName, bundledDocuments } from '@exchange-kit/contract/documents';
import { type OpenApiDocument, operationsOf, resolveRef } from '@exchange-kit/contract/spec-reader';

type Json = Record<string, unknown>;

export type { ApiName };

export const apis: Record<ApiName, { title: string; spec: Json; host: string }> = {
  exchange: {
    title: 'Exchange REST interface',
    spec: bundledDocuments.exchange as unknown as Json,
    host: '{base_url}',
  },
  partner: {
    title: 'Quick Exchange partner interface',
    spec: bundledDocuments.partner as unknown as Json,
    host: '{partners_url}',
  },
};

export interface Operation {
  api: ApiName;
  operationId: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  source: string;
  raw: Json;
  pathItem: Json;
}

/** Every operation of both interfaces, in spec order. */
export function operations(): Operation[] {
  const found: Operation[] = [];
  for (const [api, { spec }] of Object.entries(apis) as [ApiName, (typeof apis)[ApiName]][]) {
    for (const { operationId, method, path, operation: raw } of operationsOf(
      spec as unknown as OpenApiDocument,
    )) {
      found.push({
        api,
        operationId,
        method,
        path,
        tag: ((raw.tags as string[] | undefined) ?? ['other'])[0] as string,
        summary: (raw.summary as string | undefined) ?? '',
        source: (raw['x-source'] as string | undefined) ?? 'unspecified',
        raw,
        pathItem: (spec.paths as Record<string, Json>)[path] as Json,
      });
    }
  }
  return found;
}

/** The parameters of `op`, its path's first, each resolved. */
export const parametersOf = (op: Operation): Json[] =>
  [
    ...((op.pathItem.parameters as Json[] | undefined) ?? []),
    ...((op.raw.parameters as Json[] | undefined) ?? []),
  ].map((p) => deref(apis[op.api].spec, p));

/** The page of an operation, relative to the site root, without extension. */
export const operationLink = (op: Pick<Operation, 'api' | 'operationId'>) =>
  `/reference/${op.api}/${op.operationId}`;

export const schemaLink = (api: ApiName, name: string) =>
  `/reference/${api}/schemas#${name.toLowerCase()}`;

const deref = (spec: Json, value: unknown): Json =>
  resolveRef(spec as unknown as OpenApiDocument, value as Json);

const refName = (schema: Json) =>
  typeof schema.$ref === 'string' ? (schema.$ref.split('/').pop() as string) : undefined;

/**
 * Markdown text outside code spans, with what markdown would misread escaped: angle brackets
 * (Vue reads them as tags) and braces (read as attributes, as in `/orders/{order_id}`).
 */
export function text(value: unknown): string {
  return String(value ?? '')
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`')
        ? part
        : part
            .replaceAll('<', '&lt;')
            .replaceAll('>', '&gt;')
            .replaceAll('{', '&#123;')
            .replaceAll('}', '&#125;'),
    )
    .join('');
}

export const cell = (value: unknown) =>
  text(value)
    .replaceAll('|', '\\|')
    .replace(/\s*\n\s*/g, ' ');

/** A schema as a short type expression, with named schemas linked. */
export function typeOf(api: ApiName, schema: Json | undefined): string {
  if (!schema) return 'any';
  const name = refName(schema);
  if (name) return `[${name}](${schemaLink(api, name)})`;
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    return ((schema.oneOf ?? schema.anyOf) as Json[]).map((s) => typeOf(api, s)).join(' or ');
  }
  if (Array.isArray(schema.allOf))
    return (schema.allOf as Json[]).map((s) => typeOf(api, s)).join(' and ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type ?? 'any'];
  return types
    .map((t) => {
      if (t === 'array') return `array of ${typeOf(api, schema.items as Json | undefined)}`;
      if (
        t === 'object' &&
        schema.additionalProperties &&
        typeof schema.additionalProperties === 'object'
      ) {
        return `map of ${typeOf(api, schema.additionalProperties as Json)}`;
      }
      return String(t);
    })
    .join(' or ');
}

/** Constraints and allowed values of a schema, as a sentence. */
function constraints(api: ApiName, raw: Json): string {
  const schema = deref(apis[api].spec, raw);
  const parts: string[] = [];
  if (Array.isArray(schema.enum))
    parts.push(`one of ${schema.enum.map((v) => `\`${v}\``).join(', ')}`);
  else if (Array.isArray(schema['x-values-seen'])) {
    parts.push(
      `values seen: ${(schema['x-values-seen'] as unknown[]).map((v) => `\`${v}\``).join(', ')}`,
    );
  }
  if (schema.format) parts.push(`format ${schema.format}`);
  if (schema.pattern) parts.push(`pattern \`${schema.pattern}\``);
  if (schema.minLength !== undefined) parts.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.minimum !== undefined) parts.push(`minimum ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`maximum ${schema.maximum}`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  return parts.join('; ');
}

/** The properties of an object schema (following allOf and one level of refs), as a table. */
export function fieldsTable(api: ApiName, raw: Json | undefined, request = false): string {
  if (!raw) return '';
  const spec = apis[api].spec;
  const schema = deref(spec, raw);
  const props: Record<string, Json> = {};
  const required = new Set<string>();
  const collect = (s: Json) => {
    const resolved = deref(spec, s);
    for (const part of (resolved.allOf as Json[] | undefined) ?? []) collect(part);
    Object.assign(props, (resolved.properties as Record<string, Json> | undefined) ?? {});
    for (const r of (resolved.required as string[] | undefined) ?? []) required.add(r);
  };
  collect(schema);
  if (Object.keys(props).length === 0) {
    const type = typeOf(api, raw);
    const rules = constraints(api, raw);
    const said = `Type: ${type}${rules ? ` (${cell(rules)})` : ''}.`;
    // A list answer's rows are what a caller reads: their fields, as an object answer's are.
    const items = schema.type === 'array' ? (schema.items as Json | undefined) : undefined;
    const rows = items ? fieldsTable(api, items, request) : '';
    return rows.startsWith('|') ? `${said} Each item:\n\n${rows}` : said;
  }
  // A named schema's own description (DecimalLike's, say) is said once under the table when
  // several fields share it, not again on each of their rows.
  const inherited = (prop: Json) =>
    refName(prop) && prop.description === undefined
      ? (deref(spec, prop).description as string | undefined)
      : undefined;
  // A field that is an object of its own lists its fields under it, by their path: one written
  // in place (`fee_options`), and in a request body one that names a schema too (the
  // `crypto_withdrawal` a body wraps), whose fields are what the caller writes.
  type Field = { name: string; prop: Json; isRequired: boolean };
  const withNested = (field: Field, depth: number): Field[] => {
    const { name, prop } = field;
    const items = prop.type === 'array' && prop.items ? (prop.items as Json) : undefined;
    const expandable = request && depth === 1 && !items;
    const inner = expandable ? deref(spec, prop) : (items ?? prop);
    if (!expandable && (refName(prop) || refName(inner))) return [field];
    if (!inner.properties || depth > 3) return [field];
    const path = items ? `${name}[]` : name;
    const innerRequired = new Set((inner.required as string[] | undefined) ?? []);
    return [
      field,
      ...Object.entries(inner.properties as Record<string, Json>).flatMap(([key, child]) =>
        withNested(
          { name: `${path}.${key}`, prop: child, isRequired: innerRequired.has(key) },
          depth + 1,
        ),
      ),
    ];
  };
  const fields = Object.entries(props).flatMap(([name, prop]) =>
    withNested({ name, prop, isRequired: required.has(name) }, 1),
  );
  const sharers = new Map<string, Field[]>();
  for (const field of fields) {
    const ref = refName(field.prop);
    if (ref && inherited(field.prop)) sharers.set(ref, [...(sharers.get(ref) ?? []), field]);
  }
  const shared = new Map([...sharers].filter(([, sharing]) => sharing.length > 1));
  const rows = fields.map(({ name, prop, isRequired }) => {
    const resolved = deref(spec, prop);
    const source = prop['x-source'] ?? '';
    const ref = refName(prop);
    const description =
      ref && shared.has(ref) && inherited(prop) ? undefined : resolved.description;
    return `| \`${name}\` | ${cell(typeOf(api, prop))} | ${isRequired ? 'yes' : 'no'} | ${cell(
      [description, constraints(api, prop)].filter(Boolean).join(' — '),
    )}${source ? ` (x-source: ${source})` : ''} |`;
  });
  const notes = [...shared].map(
    ([ref, sharing]) =>
      `${sharing.map(({ name }) => `\`${name}\``).join(', ')}: ${typeOf(api, { $ref: `#/components/schemas/${ref}` })}, ${cell(
        inherited((sharing[0] as Field).prop),
      )}`,
  );
  return [
    '| Field | Type | Required | Description |',
    '|---|---|---|---|',
    ...rows,
    ...(notes.length > 0 ? ['', ...notes.map((note) => `- ${note}`)] : []),
  ].join('\n');
}

function examplesOf(media: Json): { title: string; value: unknown }[] {
  if (media.example !== undefined) return [{ title: 'Example', value: media.example }];
  return Object.entries((media.examples as Record<string, Json> | undefined) ?? {}).map(
    ([key, example]) => ({
      title: `Example: ${(example.summary as string | undefined) ?? key}`,
      value: example.value,
    }),
  );
}

const jsonBlock = (value: unknown) => ['```json', JSON.stringify(value, null, 2), '```'].join('\n');

/**
 * `own`, when given, is the example an operation's page shows in place of the response's own
 * (none when null): an error response shared by many operations has one example, which names
 * another's field.
 */
function contentSection(
  api: ApiName,
  content: Json | undefined,
  level: string,
  own?: unknown,
  request = false,
): string[] {
  if (!content) return [];
  const out: string[] = [];
  for (const [type, media] of Object.entries(content as Record<string, Json>)) {
    const schema = media.schema as Json | undefined;
    const resolved = schema ? deref(apis[api].spec, schema) : undefined;
    out.push(`Content type \`${type}\`, schema ${schema ? typeOf(api, schema) : 'any'}.`, '');
    if (resolved?.description && refName(schema ?? {})) out.push(text(resolved.description), '');
    const variants =
      resolved && Array.isArray(resolved.oneOf) ? (resolved.oneOf as Json[]) : [schema];
    for (const variant of variants) {
      if (!variant) continue;
      if (variants.length > 1) out.push(`${level} One of: ${typeOf(api, variant)}`, '');
      out.push(fieldsTable(api, variant, request), '');
    }
    const examples =
      own === undefined
        ? examplesOf(media)
        : own === null
          ? []
          : [{ title: 'Example', value: own }];
    for (const example of examples)
      out.push(`**${example.title}**`, '', jsonBlock(example.value), '');
  }
  return out;
}

/** What a 422 of `op` names, field by field, with where each code comes from (`x-error-codes`). */
function refusals(op: Operation): { field: string; codes: string[]; source: string }[] {
  const bySource = (op.raw['x-error-codes'] ?? {}) as Record<string, Record<string, string[]>>;
  return Object.entries(bySource).flatMap(([source, fields]) =>
    Object.entries(fields).map(([field, codes]) => ({ field, codes, source })),
  );
}

function refusalsSection(op: Operation): string[] {
  const rows = refusals(op);
  if (rows.length === 0) return [];
  return [
    '## Refusals',
    '',
    'What a 422 of this operation names in `errors`, field by field (`x-error-codes`):',
    '',
    '| Field | Codes | x-source |',
    '|---|---|---|',
    ...rows.map(
      ({ field, codes, source }) =>
        `| \`${field}\` | ${cell(codes.map((code) => `\`${code}\``).join(', '))} | ${source} |`,
    ),
    '',
  ];
}

/**
 * The example of a shared error response drawn from `op` itself: a 422 naming its first
 * refusal (none without one), a 403 naming its permission. Undefined where the response is
 * the operation's own.
 */
function ownErrorExample(op: Operation, value: Json): unknown {
  const shared = typeof value.$ref === 'string' ? value.$ref.split('/').pop() : undefined;
  const [first] = refusals(op);
  if (shared === 'ValidationFailed') {
    // With no refusal of its own, the shared example would name another operation's field.
    return first ? { errors: { [first.field]: [first.codes[0]] } } : null;
  }
  // The shared example names an order; another resource's message names it instead.
  if (shared === 'NotFound' && op.tag !== 'orders') return null;
  const permission = op.raw['x-permission'];
  if (shared === 'Forbidden' && typeof permission === 'string') {
    const media = (deref(apis[op.api].spec, value).content as Json)['application/json'] as Json;
    const { message } = (media.example ?? {}) as { message?: string };
    if (message) return { message: message.replace(/\S+$/, permission) };
  }
  return undefined;
}

export interface Coverage {
  id: string;
  level: string;
  summary: string;
}

/** What makes an operation's call from the packages (see calls.ts). */
export interface CallsFromCode {
  clients: { packageName: string; call: string }[];
  hooks: string[];
}

function callsSection(calls: CallsFromCode | undefined): string[] {
  if (!calls) return [];
  const out = ['## From the packages', ''];
  if (calls.clients.length === 0) out.push('No client method makes this call.', '');
  for (const client of calls.clients) {
    out.push(`Client method: \`${client.call}\` (\`${client.packageName}\`).`, '');
  }
  out.push(
    calls.hooks.length === 0
      ? 'React hook: none makes this call.'
      : `React hook${calls.hooks.length > 1 ? 's' : ''}: ${calls.hooks
          .map((hook) => `\`${hook}\``)
          .join(', ')} (\`@exchange-kit/react-hooks\`).`,
    '',
  );
  return out;
}

/**
 * The page of one operation. `coverage` lists the conformance requirements that exercise it;
 * `calls` the client method and hooks that make the call.
 */
export function renderOperation(
  op: Operation,
  coverage: Coverage[],
  calls?: CallsFromCode,
): string {
  const spec = apis[op.api].spec;
  const raw = op.raw;
  const out: string[] = [
    `# ${op.method} ${text(op.path)}`,
    '',
    `**${text(op.summary)}** · operation \`${op.operationId}\` · tag \`${op.tag}\` · <span class="x-source x-source-${op.source}">x-source: ${op.source}</span>`,
    '',
    '```http',
    `${op.method} ${apis[op.api].host}${op.path}`,
    '```',
    '',
    text(raw.description),
    '',
    ...callsSection(calls),
  ];

  const security = (raw.security ?? spec.security ?? []) as Record<string, unknown>[];
  out.push('## Authentication', '');
  if (security.length === 0) out.push('None: a public operation.', '');
  for (const requirement of security) {
    for (const name of Object.keys(requirement)) {
      const scheme = deref(
        spec,
        (spec.components as Json).securitySchemes &&
          ((spec.components as Json).securitySchemes as Json)[name],
      );
      const header = scheme.type === 'http' ? 'Authorization: Bearer' : `${scheme.name}`;
      const payload = raw['x-auth-payload'] as string | undefined;
      out.push(
        `\`${header}\` (${name}, x-source: ${scheme['x-source'] ?? 'unspecified'})${
          payload
            ? `: a JWT with payload [${payload}](/reference/authentication#${payload.toLowerCase()})`
            : ''
        }.`,
        '',
      );
    }
  }

  const permission = raw['x-permission'];
  if (op.api === 'exchange' && security.length > 0) {
    out.push(
      typeof permission === 'string'
        ? `Permission: \`${permission}\`. A call made for a user through an approved OAuth request needs it among the grant's permissions, or is refused with 403.`
        : "Permission: none. A call made for a user through an OAuth request is refused with 403: this operation takes only the token's own calls.",
      '',
    );
  }

  const parameters = parametersOf(op);
  if (parameters.length > 0) {
    out.push(
      '## Parameters',
      '',
      '| Name | In | Type | Required | Description |',
      '|---|---|---|---|---|',
    );
    for (const p of parameters) {
      const schema = p.schema as Json;
      out.push(
        `| \`${p.name}\` | ${p.in} | ${cell(typeOf(op.api, schema))} | ${p.required ? 'yes' : 'no'} | ${cell(
          [
            p.description,
            constraints(op.api, schema),
            p.example !== undefined ? `example \`${p.example}\`` : '',
          ]
            .filter(Boolean)
            .join(' — '),
        )} |`,
      );
    }
    out.push('');
  }

  if (raw.requestBody) {
    const body = deref(spec, raw.requestBody);
    out.push(
      '## Request body',
      '',
      `${body.required ? 'Required' : 'Optional'}. ${text(body.description ?? '')}`,
      '',
    );
    out.push(...contentSection(op.api, body.content as Json, '####', undefined, true));
  }

  out.push('## Responses', '');
  for (const [status, value] of Object.entries(raw.responses as Record<string, Json>)) {
    const response = deref(spec, value);
    out.push(`### ${status}`, '', text(response.description), '');
    if (response['x-source']) out.push(`x-source: ${response['x-source']}`, '');
    out.push(
      ...contentSection(
        op.api,
        response.content as Json | undefined,
        '####',
        ownErrorExample(op, value),
      ),
    );
  }
  out.push(...refusalsSection(op));

  out.push('## Conformance', '');
  if (coverage.length === 0) out.push('No conformance requirement names this operation.', '');
  else {
    out.push('The conformance suite checks this operation through:', '');
    for (const c of coverage) {
      out.push(
        `- [${c.id}](/reference/conformance#${c.id.toLowerCase()}) (${c.level}): ${cell(c.summary)}`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

/** The index of an interface: its operations grouped by tag. */
export function renderApiIndex(api: ApiName): string {
  const spec = apis[api].spec;
  const info = spec.info as Json;
  const out = [`# ${apis[api].title}`, '', text(info.description), ''];
  const tags = (spec.tags as Json[] | undefined) ?? [];
  const ops = operations().filter((o) => o.api === api);
  for (const tag of tags) {
    const inTag = ops.filter((o) => o.tag === tag.name);
    if (inTag.length === 0) continue;
    out.push(
      `## ${tag.name}`,
      '',
      text(tag.description),
      '',
      '| Operation | Summary | x-source |',
      '|---|---|---|',
    );
    for (const o of inTag) {
      out.push(
        `| [\`${o.method} ${o.path}\`](${operationLink(o)}) | ${cell(o.summary)} | ${o.source} |`,
      );
    }
    out.push('');
  }
  out.push(`Schemas: [every schema of this interface](/reference/${api}/schemas).`, '');
  return out.join('\n');
}

/** Every component schema of an interface, one section each. */
export function renderSchemas(api: ApiName): string {
  const spec = apis[api].spec;
  const schemas = (spec.components as Json).schemas as Record<string, Json>;
  const out = [`# Schemas: ${apis[api].title}`, ''];
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`## ${name} {#${name.toLowerCase()}}`, '');
    if (schema['x-source']) out.push(`x-source: ${schema['x-source']}`, '');
    if (schema.description) out.push(text(schema.description), '');
    out.push(fieldsTable(api, schema), '');
    if (Array.isArray(schema.oneOf))
      out.push(`One of: ${(schema.oneOf as Json[]).map((s) => typeOf(api, s)).join(', ')}.`, '');
    if (schema.example !== undefined) out.push(jsonBlock(schema.example), '');
  }
  return out.join('\n');
}

const payloadSchemas: { api: ApiName; name: string; use: string }[] = [
  {
    api: 'exchange',
    name: 'ServiceAuthPayload',
    use: 'Calls made with your own API token (orders, loan book...).',
  },
  {
    api: 'exchange',
    name: 'OAuthDelegatedPayload',
    use: 'Calls made for a user through an approved OAuth request (user context, accounts).',
  },
  {
    api: 'partner',
    name: 'PartnerDelegatedPayload',
    use: 'Partner calls (create an intent, list transactions): `path` is `/realtime`, `delegate_path` the real path.',
  },
  {
    api: 'partner',
    name: 'SessionAuthPayload',
    use: 'Quick Exchange calls made for a user session, as `Authorization: Bearer`, signed with the `session_secret`.',
  },
];

/** The security schemes of both interfaces and the JWT payloads they carry. */
export function renderAuthentication(
  samples: Record<string, { header: unknown; payload: unknown }> = {},
): string {
  const out = ['# Authentication', ''];
  out.push('## Security schemes', '');
  for (const api of ['exchange', 'partner'] as const) {
    const schemes = ((apis[api].spec.components as Json).securitySchemes ?? {}) as Record<
      string,
      Json
    >;
    for (const [name, scheme] of Object.entries(schemes)) {
      out.push(
        `### ${name} (${apis[api].title}) {#${api}-${name.toLowerCase()}}`,
        '',
        `Type \`${scheme.type}\`${scheme.in ? `, in ${scheme.in} \`${scheme.name}\`` : ''}${scheme.scheme ? `, scheme \`${scheme.scheme}\`` : ''}. x-source: ${scheme['x-source'] ?? 'unspecified'}.`,
        '',
        text(scheme.description),
        '',
      );
    }
  }
  out.push('## JWT payloads', '');
  for (const { api, name, use } of payloadSchemas) {
    const schema = ((apis[api].spec.components as Json).schemas as Record<string, Json>)[name];
    if (!schema) throw new Error(`The spec has no schema ${name}`);
    const users = operations().filter((o) => o.raw['x-auth-payload'] === name);
    out.push(
      `### ${name} {#${name.toLowerCase()}}`,
      '',
      use,
      '',
      `x-source: ${schema['x-source'] ?? 'unspecified'}. ${text(schema.description)}`,
      '',
    );
    out.push(fieldsTable(api, schema), '');
    const sample = samples[name];
    if (sample) {
      out.push(
        'Header and payload of such a JWT, as `@exchange-kit/core/auth` signs it:',
        '',
        jsonBlock(sample.header),
        '',
        jsonBlock(sample.payload),
        '',
      );
    }
    if (users.length > 0) {
      out.push(
        `Used by: ${users.map((o) => `[\`${o.method} ${o.path}\`](${operationLink(o)})`).join(', ')}.`,
        '',
      );
    }
  }
  return out.join('\n');
}
