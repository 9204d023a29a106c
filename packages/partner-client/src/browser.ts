import {
  buildPartnerClient,
  type PartnerClient,
  type PartnerClientOptions,
} from './partner-client.js';

/**
 * The partner client for browsers: it holds no secret and carries no signing code. Calls that
 * need the partner's token (intents, listing) belong on the partner's backend.
 */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  if (options.tokenSecret !== undefined) {
    throw new TypeError('tokenSecret must not reach a browser: create intents on your backend');
  }
  return buildPartnerClient(options, undefined);
}

export * from './exports.js';
