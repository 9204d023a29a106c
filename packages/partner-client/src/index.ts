import { serviceAuthenticator } from '@exchange-kit/core/auth';
import {
  buildPartnerClient,
  type PartnerClient,
  type PartnerClientOptions,
} from './partner-client.js';

/**
 * The partner client. With tokenId and tokenSecret (server side) it can also create intents
 * and list the partner's transactions; without them it makes the calls a browser may make.
 */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const { tokenId, tokenSecret } = options;
  const authenticate =
    tokenId !== undefined && tokenSecret !== undefined
      ? serviceAuthenticator({ tokenId, tokenSecret })
      : undefined;
  return buildPartnerClient(options, authenticate);
}

export * from './exports.js';
