import { fetchSend, type Send } from './send.js';

/** Browsers and edge runtimes: the global fetch, looked up per call so a later polyfill is used. */
export const defaultSend: Send = fetchSend((input, init) => globalThis.fetch(input, init));
