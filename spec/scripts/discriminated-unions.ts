/**
 * @hey-api/openapi-ts 0.95 (the last release that runs on Node 20) writes a `oneOf` with a
 * `discriminator` as a plain union of intersections. zod reports the failure of such a union
 * as one "Invalid input" at the root, so a limit order without a price would not say that
 * `price` is missing. This pass rewrites, from the spec, each such schema as
 * `z.discriminatedUnion` and each of its members (`allOf: [base, {...}]`) as
 * `z.extend(base, {...})`, an object zod can pick a member of by the discriminator's value.
 * It refuses any shape it does not recognise, so a generator upgrade cannot slip past it.
 */

type Json = Record<string, unknown>;

const refName = (ref: unknown): string => {
  if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) {
    throw new Error(`discriminated union member ${String(ref)} is not a local schema $ref`);
  }
  return ref.slice('#/components/schemas/'.length);
};

/** Start and end (after its `;`) of `export const <name> = ...;` in `code`. */
function declaration(code: string, name: string): { start: number; end: number; text: string } {
  const head = `export const ${name} = `;
  const start = code.indexOf(head);
  if (start < 0) throw new Error(`the generated schemas have no ${name}`);
  const end = code.indexOf(';\n', start) + 1;
  return { start, end, text: code.slice(start + head.length, end - 1) };
}

/** The text of the balanced `{...}` that opens at `open` in `text`. */
function braced(text: string, open: number): string {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return text.slice(open, index + 1);
  }
  throw new Error(`unbalanced braces in ${text.slice(0, 80)}`);
}

const replace = (code: string, name: string, expression: string): string => {
  const { start, end } = declaration(code, name);
  return `${code.slice(0, start)}export const ${name} = ${expression};${code.slice(end)}`;
};

/** `allOf: [{$ref: base}, {type: object, ...}]` generated as intersections, as one z.object. */
function asExtension(code: string, member: string, schema: Json): string {
  const allOf = schema.allOf as Json[] | undefined;
  if (!allOf) return code; // a plain object is already a z.object
  const [base, own] = allOf;
  if (allOf.length !== 2 || !base?.$ref || own?.type !== 'object') {
    throw new Error(`${member}: a union member is allOf: [{$ref}, {type: object}]`);
  }
  const baseName = `z${refName(base.$ref)}`;
  const { text } = declaration(code, `z${member}`);
  const opening = `z.intersection(${baseName}, z.object(`;
  const at = text.indexOf(opening);
  if (!text.startsWith('z.intersection(') || at < 0) {
    throw new Error(`z${member} is not generated as an intersection with ${baseName}`);
  }
  const shape = braced(text, at + opening.length);
  return replace(code, `z${member}`, `z.extend(${baseName}, ${shape})`);
}

/** The generated zod module with every discriminated `oneOf` of `document` made one. */
export function discriminatedUnions(code: string, document: Json): string {
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<
    string,
    Json
  >;
  let out = code;
  for (const [name, schema] of Object.entries(schemas)) {
    const property = (schema.discriminator as Json | undefined)?.propertyName;
    if (typeof property !== 'string' || !Array.isArray(schema.oneOf)) continue;
    const members = (schema.oneOf as Json[]).map((branch) => refName(branch.$ref));
    for (const member of members) {
      const memberSchema = schemas[member];
      if (!memberSchema) throw new Error(`${name}: no schema ${member}`);
      out = asExtension(out, member, memberSchema);
    }
    const list = members.map((member) => `z${member}`).join(', ');
    out = replace(out, `z${name}`, `z.discriminatedUnion('${property}', [${list}])`);
  }
  return out;
}
