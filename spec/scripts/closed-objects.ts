/**
 * @hey-api/openapi-ts 0.95 (the last release that runs on Node 20) writes a schema with
 * `additionalProperties: false` as `z.object`, which drops unknown keys instead of refusing
 * them: a misspelled filter of a bulk cancel would be read as no filter. This pass writes each
 * such component schema as `z.strictObject`, from the spec. It refuses a closed schema it
 * cannot find written as a plain object, so a generator upgrade cannot slip past it.
 */

type Json = Record<string, unknown>;

export function closedObjects(code: string, document: Json): string {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<
    string,
    Json
  >;
  let out = code;
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema.additionalProperties !== false) continue;
    const plain = `export const z${name} = z.object(`;
    if (!out.includes(plain)) {
      throw new Error(
        `${name} is closed (additionalProperties: false) but not written as ${plain}`,
      );
    }
    out = out.replace(plain, `export const z${name} = z.strictObject(`);
  }
  return out;
}
