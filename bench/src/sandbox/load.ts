// One load's figures and how its rounds become a row: what every sandbox measure shares.

import { serviceAuthJwt } from '@exchange-kit/core/auth';
import autocannon from 'autocannon';

export const connections = 16;
export const seconds = 8;
// Write rows swing by a fifth from one 8 s round to the next on a shared 2-core machine: each
// is the median of several rounds, shown with their range.
export const writeRounds = 3;

export type Token = { tokenId: string; tokenSecret: string };

export interface Load {
  name: string;
  perSecond: number;
  p99Ms: number;
  failed: number;
  /** Lowest and highest of the rounds a median row was taken from. */
  range?: { perSecond: [number, number]; p99Ms: [number, number] };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const span = (values: number[]): [number, number] => [Math.min(...values), Math.max(...values)];

/** `measure` run `writeRounds` times: the median of each figure, the sum of failures. */
export async function rounds(measure: () => Promise<Load>): Promise<Load> {
  const loads: Load[] = [];
  for (let n = 0; n < writeRounds; n++) loads.push(await measure());
  return medianOf(loads);
}

export function medianOf(loads: Load[]): Load {
  const perSecond = loads.map((round) => round.perSecond);
  const p99Ms = loads.map((round) => round.p99Ms);
  return {
    name: (loads[0] as Load).name,
    perSecond: median(perSecond),
    p99Ms: median(p99Ms),
    failed: loads.reduce((sum, round) => sum + round.failed, 0),
    range: { perSecond: span(perSecond), p99Ms: span(p99Ms) },
  };
}

export async function load(name: string, options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return {
    name,
    perSecond: result.requests.average,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors,
  };
}

/** A load generator's request hook cannot wait: on Node a JWT is signed at once. */
export function signedNow(jwt: string | Promise<string>): string {
  if (typeof jwt !== 'string') throw new Error('signing is synchronous on Node');
  return jwt;
}

export const sign = (token: Token, path: string) => signedNow(serviceAuthJwt(token, { path }));

/** Places an order of `token`'s user: its status, its parsed body, and how long it took. */
export async function placeSigned(exchangeUrl: string, token: Token, order: object) {
  const started = performance.now();
  const response = await fetch(`${exchangeUrl}/orders`, {
    method: 'POST',
    body: JSON.stringify(order),
    headers: { 'content-type': 'application/json', 'x-service-auth': sign(token, '/orders') },
  });
  const ms = performance.now() - started;
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, ms };
}

const ranged = (value: string, range: [number, number] | undefined, unit = '') =>
  range ? `${value} (${Math.round(range[0])}-${Math.round(range[1])}${unit})` : value;
export const tableRow = (row: Load) => {
  const perSecond = ranged(String(Math.round(row.perSecond)), row.range?.perSecond);
  const p99 = Number.isNaN(row.p99Ms) ? '' : ranged(`${row.p99Ms} ms`, row.range?.p99Ms, ' ms');
  return `| ${row.name} | ${perSecond} | ${p99} | ${row.failed} |`;
};
export const loadTableHead = [
  '| load | per second | p99 | non-2xx or errors |',
  '| --- | --- | --- | --- |',
];
export const share = (writes: Load, ceiling: Load) =>
  `${Math.round((writes.perSecond / ceiling.perSecond) * 100)}%`;
