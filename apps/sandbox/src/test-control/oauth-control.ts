import { denyRequest } from '../exchange/oauth.js';
import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

/**
 * `POST /test/oauth_requests/{oauth_request_public_id}/deny` with `{}` denies a pending OAuth
 * request as its user would at the approval page.
 */
export async function denyOAuthRequest({
  sequencer,
  clock,
  params,
}: ControlCall<{ oauth_request_public_id: string }>): Promise<Serialized> {
  const id = params.oauth_request_public_id;
  const status = await sequencer.run((journal) => denyRequest(journal, id, clock.now()));
  if (status === undefined) return uncachedJson(404, { message: 'OAuth request not found' });
  return status === 'denied'
    ? uncachedJson(200, { oauth_request_public_id: id, status })
    : refused('oauth_request_public_id', `not_pending:${status}`);
}
