/**
 * @hey-api/openapi-ts 0.95 (the last release that runs on Node 20) writes a schema with
 * `additionalProperties: false` as `z.object`, which drops unknown keys instead of refusing
 * them: a misspelled filter of a bulk cancel would be read as no filter. This pass writes each
 * such component schema as `z.strictObject`, from the spec, and so a schema closed over its
 * `allOf` (`unevaluatedProperties: false`) and a closed object inside a component's properties
 * (the `trade` of `{"trade": {...}}`). It refuses a closed schema it cannot find written as a
 * plain object, so a generator upgrade cannot slip past it.
 */

type Json = Record<string, unknown>;

export function closedObjects(code: string, document: Json): string {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<
    string,
    Json
  >;
  let out = code;
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema.unevaluatedProperties === false) {
      out = closedExtension(out, name);
      continue;
    }
    for (const path of closedWithin(schema)) out = closedProperty(out, name, path);
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

/**
 * A schema closed over what its `allOf` gives (`unevaluatedProperties: false`), which the
 * generator writes as `z.extend(zBase, {...})` of an open base: written as a strict object of
 * the base's shape and its own, so a key neither declares is refused.
 */
function closedExtension(code: string, name: string): string {
  const extension = new RegExp(
    `export const z${name} = (/\\* @__PURE__ \\*/ )?z\\.extend\\((z\\w+), \\{`,
  );
  const found = extension.exec(code);
  if (!found) {
    throw new Error(`${name} is closed (unevaluatedProperties: false) but not written as z.extend`);
  }
  return code.replace(
    extension,
    `export const z${name} = ${found[1] ?? ''}z.strictObject({ ...${found[2]}.shape,`,
  );
}

/** The property paths of the closed objects inside `schema`'s properties, outermost first. */
function closedWithin(schema: Json, path: string[] = []): string[][] {
  const found: string[][] = [];
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  for (const [key, property] of Object.entries(properties)) {
    const at = [...path, key];
    if (property.additionalProperties === false) found.push(at);
    found.push(...closedWithin(property, at));
  }
  return found;
}

/**
 * The object at `path` inside schema `name`, written as a strict object: each key of the path
 * found in turn in the schema's code, a required or an optional property.
 */
function closedProperty(code: string, name: string, path: string[]): string {
  const start = code.indexOf(`export const z${name} = `);
  const next = code.indexOf('\nexport const ', start + 1);
  const end = next === -1 ? code.length : next;
  let at = start;
  let object: RegExpExecArray | null = null;
  for (const key of path) {
    const property = new RegExp(`\\b${key}: (z\\.optional\\()?z\\.object\\(`, 'g');
    property.lastIndex = at;
    object = property.exec(code);
    if (start === -1 || !object || object.index >= end) {
      throw new Error(
        `${name}.${path.join('.')} is closed (additionalProperties: false) but not written as a z.object`,
      );
    }
    at = object.index + object[0].length;
  }
  const opening = at - 'z.object('.length;
  return `${code.slice(0, opening)}z.strictObject(${code.slice(at)}`;
}
