import { operationTable } from '@exchange-kit/contract/exchange';
import { bodyOf } from '../engine/context.js';
import { fixtureFailed, type RecordedCall } from '../engine/outcome.js';
import type { ScenarioContext } from './scenario.js';

/**
 * An OAuth request of this run, created and approved for the user through the adapter: its
 * ids. `onCreated` sees the creating call first, whatever it answered.
 */
export async function approvedRequest(
  context: ScenarioContext,
  externalRef: string,
  onCreated: (created: RecordedCall) => void = () => {},
) {
  const created = await context.caller.call('createOAuthRequest', {
    body: { external_ref: externalRef },
  });
  onCreated(created);
  if (created.status !== operationTable.createOAuthRequest.status)
    throw fixtureFailed('creating an OAuth request', created, 'oauth');
  const request = bodyOf(created);
  const ids = {
    publicId: String(request.oauth_request_public_id),
    privateId: String(request.oauth_request_private_id),
  };
  await context.adapter.approveOAuthRequest(context.adapterContext, {
    ...ids,
    apiChallengeHref: String(request.api_challenge_href),
  });
  return ids;
}
