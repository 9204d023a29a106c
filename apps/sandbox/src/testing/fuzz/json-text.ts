/**
 * JSON written by hand rather than by JSON.stringify of a value: a value cannot hold two
 * entries under one key, nor a number token such as `1e400` exactly as written, and the
 * fuzzer needs to send both.
 */

/** A JSON string literal; lone surrogates come out as `\ud800` escapes, as JSON allows. */
export function jsonString(text: string): string {
  return JSON.stringify(text);
}

/** An object from its entries in order, repeated keys kept. */
export function jsonObject(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([key, value]) => `${jsonString(key)}:${value}`).join(',')}}`;
}

export function jsonArray(items: readonly string[]): string {
  return `[${items.join(',')}]`;
}

/** `levels` arrays inside one another around `inner`. */
export function nestedArrays(levels: number, inner = ''): string {
  return `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
}

/** `levels` objects inside one another, each holding the next under `key`. */
export function nestedObjects(levels: number, key = 'a'): string {
  return `${`{${jsonString(key)}:`.repeat(levels)}null${'}'.repeat(levels)}`;
}
