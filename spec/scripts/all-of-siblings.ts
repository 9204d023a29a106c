type Json = Record<string, unknown>;

/**
 * Keywords that narrow a value. The zod generator builds a schema with `allOf` from its members
 * alone and drops these beside it: a `maxLength` next to `allOf: [{$ref}]` let a value of any
 * length through. A narrowing belongs in a member of the `allOf`, where it is generated.
 */
const narrowing = [
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'enum',
  'const',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
];

/** Throws naming every schema of `document` with a narrowing keyword beside its `allOf`. */
export function checkAllOfSiblings(document: Json, name: string): void {
  const found: string[] = [];
  const visit = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      for (const [n, item] of node.entries()) visit(item, `${path}/${n}`);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const schema = node as Json;
    if (Array.isArray(schema.allOf)) {
      for (const keyword of narrowing) if (keyword in schema) found.push(`${path} ${keyword}`);
    }
    for (const [key, value] of Object.entries(schema)) visit(value, `${path}/${key}`);
  };
  visit(document, '#');
  if (found.length > 0) {
    throw new Error(
      `${name}: a narrowing beside allOf is not generated; put it in a member of the allOf: ${found.join(', ')}`,
    );
  }
}
