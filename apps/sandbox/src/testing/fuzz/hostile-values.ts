/**
 * Values no client means to send, as the strangers of issue 13 sent them. Each comes as the
 * text that goes on the wire, so a shrunk failure shows exactly what was sent.
 */
import fc from 'fast-check';
import { jsonObject, jsonString, nestedArrays, nestedObjects } from './json-text.js';

/**
 * Text the store cannot compress: an index entry of a few thousand such characters exceeds
 * PostgreSQL's row size for an index, where a run of one repeated letter fits. A fixed
 * linear congruential sequence (its high bits: the low ones repeat soon), so every run sends
 * the same text.
 */
function incompressible(length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let state = 1;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += alphabet[(state >>> 16) % alphabet.length];
  }
  return text;
}

/** Strings that a store, an index or a decimal parser may take badly. */
export const hostileStrings: readonly string[] = [
  '',
  ' ',
  '\ud800',
  // Two ids that differ only in a lone surrogate: both would be stored as 'id-\ufffd'.
  'id-\udfff',
  'id-\ud800',
  '\udc00\ud800',
  'a\u0000b',
  '\u0000',
  '\u202e\u200b',
  '\ud83d\ude00',
  '1e5',
  '1E-5',
  '-0',
  '0001',
  '00.5',
  '.5',
  '5.',
  '+1',
  '0x10',
  'NaN',
  'Infinity',
  '1e400',
  '-1e-400',
  '0.000000000000000000000000000000000000000001',
  '999999999999999999999999999999999999999999999999.99',
  '1'.repeat(400),
  '../../etc/passwd',
  'client:../x',
  '%2F..%2F',
  "'; DROP TABLE orders; --",
  '<script>alert(1)</script>',
  '__proto__',
  'x'.repeat(5_000),
  incompressible(3_000),
];

/** Number tokens, written as sent: huge, tiny, negative zero, beyond a double. */
export const hostileNumbers: readonly string[] = [
  '0',
  '-0',
  '-1',
  '1e5',
  '1E+400',
  '-1e400',
  '1e-400',
  '0.1',
  '2147483648',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.00000000000000000000000000001',
];

/** Keys that name something on every JavaScript object, or no text at all. */
export const hostileKeys: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  '\ud800',
  'a\u0000',
  'order',
];

/** Anything but JSON, and JSON spelled oddly. */
export const hostileContentTypes: readonly (string | undefined)[] = [
  undefined,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/jsonx',
  'json',
  'APPLICATION/JSON; charset=utf-8',
  'application/merge-patch+json',
];

/**
 * Nesting depths just past the specs' bound (`max-nesting-depth` is 32) and far past it: the
 * 5,000 levels that once overflowed the stack.
 */
const depths = [33, 5_000] as const;

const oddJson = ['true', 'false', 'null', '[]', '{}', '[null]', '{"":""}'] as const;

const nestedJson = depths.flatMap((levels) => [nestedArrays(levels), nestedObjects(levels)]);

/**
 * JSON values of every kind but the expected one, as text. Strings come most often: most
 * fields are strings, and a bad string reaches furthest (into the store and its indexes).
 */
export function hostileJson(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...hostileStrings).map(jsonString) },
    { weight: 2, arbitrary: fc.constantFrom(...hostileNumbers) },
    { weight: 1, arbitrary: fc.constantFrom(...oddJson) },
    { weight: 4, arbitrary: fc.constantFrom(...nestedJson) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...hostileKeys), fc.constantFrom('{"admin":true}', '1', 'null'))
        .map(([key, value]) => jsonObject([[key, value]])),
    },
  );
}

/** Every hostile JSON value, once each, as text: what a sweep puts in each field in turn. */
export const everyHostileJson: readonly string[] = [
  ...hostileStrings.map(jsonString),
  ...hostileNumbers,
  ...oddJson,
  ...nestedJson,
  ...hostileKeys.map((key) => jsonObject([[key, '{"admin":true}']])),
];

/** Whole bodies that are not a JSON object, or not JSON at all. */
export function hostileBodyText(): fc.Arbitrary<string> {
  return fc.oneof(
    hostileJson(),
    fc.constantFrom('', '{', '{"a":1,}', "{'a':1}", '{"a":01}', 'NaN', '\u0000', '{"a":"\\ud800"}'),
  );
}

/**
 * Path segment values, already percent-encoded as sent: traversal, encoded slashes and NULs,
 * broken escapes, an encoded lone surrogate (not UTF-8), and ids far too long.
 */
export const hostilePathSegments: readonly string[] = [
  '..',
  '../..',
  '..%2F..%2Fadmin',
  '%2F',
  '%2e%2e',
  '%00',
  'a%00b',
  '%',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F0%9F%98%80',
  'client:x',
  'client:',
  '-1',
  '0',
  '00012',
  '1e5',
  '9223372036854775808',
  // Past any id's bound and an index row's size, yet with its signature inside the 16 KiB
  // that Node's HTTP parser takes for a request's head.
  'x'.repeat(3_000),
  '%41'.repeat(1_000),
];

/** The hostile path values as a fast-check arbitrary. */
export function hostilePathSegment(): fc.Arbitrary<string> {
  return fc.constantFrom(...hostilePathSegments);
}
