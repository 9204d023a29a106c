import { parse, type ValueNode } from '@humanwhocodes/momoa';

/**
 * What a JSON text holds, read without parsing it: whether its arrays and objects nest deeper
 * than `limit`, and how many object members it writes (a colon outside a string is one).
 */
export function scanJson(text: string, limit: number): { tooDeep: boolean; members: number } {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x3a) {
      members++;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return { tooDeep: true, members };
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return { tooDeep: false, members };
}

/** How many keys the objects of a parsed JSON value hold, nested ones included. */
export function keysHeld(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += keysHeld(item);
    return count;
  }
  for (const item of Object.values(value)) count += 1 + keysHeld(item);
  return count;
}

/**
 * The path of the first key an object of `text` writes twice, if one does: JSON.parse keeps
 * the last, so `scanJson`'s members outnumber `keysHeld` exactly when one is repeated.
 */
export function repeatedKeyIn(text: string): string[] | undefined {
  const pending: { node: ValueNode; path: string[] }[] = [{ node: parse(text).body, path: [] }];
  for (let next = pending.shift(); next; next = pending.shift()) {
    const { node, path } = next;
    if (node.type === 'Object') {
      const names = new Set<string>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        if (names.has(name)) return [...path, name];
        names.add(name);
        pending.push({ node: member.value, path: [...path, name] });
      }
    } else if (node.type === 'Array') {
      node.elements.forEach((element, index) => {
        pending.push({ node: element.value, path: [...path, String(index)] });
      });
    }
  }
  return undefined;
}
