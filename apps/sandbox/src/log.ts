/**
 * The sandbox's structured log: one JSON line per event, with every secret the specs name and
 * every statement's values redacted, so an error never carries a secret into a log file.
 */

import { secretFields as exchangeSecrets } from '@exchange-kit/contract/exchange';
import { secretFields as partnerSecrets } from '@exchange-kit/contract/partner';
import pino from 'pino';

export type Logger = pino.Logger;
export type LogDestination = pino.DestinationStream;

/** The names of the fields the specs mark `x-secret`, as the contract lists them. */
function secretFieldNames(): string[] {
  return [...new Set([...exchangeSecrets, ...partnerSecrets])].sort();
}

// Where database drivers keep a failed statement, its values, and the row it refused.
const statementFields = ['params', 'parameters', 'values', 'query', 'detail', 'where'];
const errorDepth = 3;

/** An error as a plain object: its own fields and its causes, which redaction then reaches. */
function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error;
  const plain: Record<string, unknown> = {
    type: error.name,
    message: error.message,
    stack: error.stack,
  };
  for (const [key, value] of Object.entries(error)) plain[key] ??= value;
  if (error.cause !== undefined && depth < errorDepth) {
    plain.cause = serializeError(error.cause, depth + 1);
  }
  return plain;
}

/** Redaction paths: the secret fields a few levels down, and every statement field of an error. */
export function redactedPaths(): string[] {
  const secrets = secretFieldNames().flatMap((name) => [name, `*.${name}`, `*.*.${name}`]);
  const errors = Array.from({ length: errorDepth + 1 }, (_, depth) =>
    ['err', ...Array<string>(depth).fill('cause')].join('.'),
  );
  return [...secrets, ...errors.flatMap((at) => statementFields.map((field) => `${at}.${field}`))];
}

/** A logger writing to `destination`, standard error by default (standard output is the banner). */
export function createLogger(destination?: LogDestination): Logger {
  return pino(
    {
      base: undefined,
      redact: { paths: redactedPaths(), censor: '[redacted]' },
      serializers: { err: (error: unknown) => serializeError(error) },
    },
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
}
