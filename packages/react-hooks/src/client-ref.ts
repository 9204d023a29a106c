/**
 * A fresh client_ref. crypto.randomUUID exists only in secure contexts, getRandomValues
 * everywhere, so the reference is built from it.
 */
export function newClientRef(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `qx-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
