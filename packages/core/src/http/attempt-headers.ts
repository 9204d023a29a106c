// RFC 9110: a name is a token, and a value holds no control character but a tab. Headers
// refuses only NUL and line breaks (which would end the header); node:http refuses every
// control character, but only once the request is under way: checked here, the call fails the
// same way on either transport, before anything is sent.
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const headerValueControl = /[^\t\x20-\x7e\x80-\xff]/;

// A client sets the same few names on every attempt: each is checked and lower-cased once.
const lowerCasedNames = new Map<string, string>();
const maxNames = 256;

function lowerCased(name: string): string {
  const known = lowerCasedNames.get(name);
  if (known !== undefined) return known;
  if (!headerName.test(name)) throw new TypeError(`Invalid header name: ${JSON.stringify(name)}`);
  const lower = name.toLowerCase();
  if (lowerCasedNames.size >= maxNames) lowerCasedNames.clear();
  lowerCasedNames.set(name, lower);
  return lower;
}

/** The lower-cased name, once name and value are fit to go out; a TypeError as Headers throws. */
function checked(name: string, value: string): string {
  const lower = lowerCased(name);
  if (headerValueControl.test(value)) {
    throw new TypeError(`Invalid value of header ${name}: it holds a control character`);
  }
  return lower;
}

/**
 * The headers of one attempt, with the methods of Headers that an authenticator uses. Names
 * are kept lower-cased in a plain record, which node:http and fetch both take as they are: a
 * Headers object (made, filled, then iterated in sorted order for every attempt) cost a call
 * as much as signing it.
 */
export class AttemptHeaders {
  readonly #values: Record<string, string> = {};

  constructor(init?: HeadersInit) {
    if (init === undefined) return;
    if (init instanceof Headers || Array.isArray(init)) {
      for (const [name, value] of init) this.append(name, value);
    } else {
      for (const name in init) this.append(name, init[name] as string);
    }
  }

  get(name: string): string | null {
    return this.#values[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return name.toLowerCase() in this.#values;
  }

  set(name: string, value: string): void {
    this.#values[checked(name, value)] = value;
  }

  /** A second value joins the first with a comma, as Headers does. */
  append(name: string, value: string): void {
    const key = checked(name, value);
    const known = this.#values[key];
    this.#values[key] = known === undefined ? value : `${known}, ${value}`;
  }

  delete(name: string): void {
    delete this.#values[name.toLowerCase()];
  }

  forEach(each: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) each(value, name);
  }

  /** Name and value pairs in the order Headers gives them: by name. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#values).sort()) {
      yield [name, this.#values[name] as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /** The headers as a record of lower-cased names, to hand to node:http or fetch. */
  toRecord(): Record<string, string> {
    return this.#values;
  }
}
