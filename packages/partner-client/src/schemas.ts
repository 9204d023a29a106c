/** Runtime zod schemas of every request and response of the partner spec, generated from spec/. */
export * from './generated/partner.zod.js';
