import type { OAuthRequestView } from '../engine/adapter.js';
import { bodyOf, expectStatus } from '../engine/context.js';
import { Failure, fixtureFailed, type RecordedCall } from '../engine/outcome.js';
import type { Scenario, ScenarioContext } from './scenario.js';

/** A new OAuth request of this run, left pending. */
async function pendingRequest(context: ScenarioContext, name: string): Promise<OAuthRequestView> {
  const created = await context.caller.call('createOAuthRequest', {
    body: { external_ref: `${context.runId}-${name}` },
  });
  if (created.status !== 200) throw fixtureFailed('creating an OAuth request', created, 'oauth');
  const request = bodyOf(created);
  return {
    publicId: String(request.oauth_request_public_id),
    privateId: String(request.oauth_request_private_id),
    apiChallengeHref: String(request.api_challenge_href),
  };
}

/** The 401 must name `code` as the reason the request does not act for the user. */
function expectRefusedAs(call: RecordedCall, code: string): string {
  const documented = `401 {"errors": {"oauth_request_public_id": ["${code}"]}}`;
  expectStatus(call, 401, documented);
  const named = (call.json as { errors?: { oauth_request_public_id?: unknown } } | undefined)
    ?.errors?.oauth_request_public_id;
  if (!Array.isArray(named) || named.length !== 1 || named[0] !== code) {
    throw new Failure(`the 401 does not name the request ${code}`, {
      received: `401 ${call.responseText.slice(0, 300)}`,
      documented,
      call,
    });
  }
  return `refused with 401 naming ${code}`;
}

/** Reads the request back; it must be in `status`, with `decided_at` set once it was answered. */
async function expectState(
  context: ScenarioContext,
  request: OAuthRequestView,
  status: string,
): Promise<void> {
  const read = await context.caller.call('getOAuthRequest', {
    path: { oauth_request_public_id: request.publicId },
  });
  const documented = `200 with status ${status}`;
  expectStatus(read, 200, documented);
  const body = bodyOf(read);
  const decided = body.decided_at !== null && body.decided_at !== undefined;
  if (body.status !== status || decided !== (status === 'approved' || status === 'denied')) {
    throw new Failure(`the request reads ${String(body.status)}, not ${status}`, {
      received: `status ${JSON.stringify(body.status)}, decided_at ${JSON.stringify(body.decided_at)}`,
      documented: `${documented}, decided_at ${status === 'pending' ? 'null' : 'set'}`,
      call: read,
    });
  }
}

const oauthStates: Scenario = {
  name: 'OAuth requests pending, approved and denied, as calls and state reads see them',
  profile: 'oauth',
  covers: ['OAUTH-PENDING-REFUSED', 'OAUTH-DENIED-REFUSED', 'OAUTH-STATE-READ'],
  needs: [{ step: 'denyOAuthRequest' }],
  async run(context) {
    const pending = await pendingRequest(context, 'pending');
    const early = await context.caller.call('getUserContext', {
      auth: { kind: 'oauth', ids: pending },
    });
    await context.evidence.check('OAUTH-PENDING-REFUSED', async () =>
      expectRefusedAs(early, 'pending'),
    );

    const denied = await pendingRequest(context, 'denied');
    let deniedRead = false;
    await context.evidence.check('OAUTH-DENIED-REFUSED', async () => {
      await context.adapter.denyOAuthRequest(context.adapterContext, denied);
      deniedRead = true;
      const refused = await context.caller.call('getUserContext', {
        auth: { kind: 'oauth', ids: denied },
      });
      return expectRefusedAs(refused, 'denied');
    });

    await context.evidence.check('OAUTH-STATE-READ', async () => {
      await expectState(context, pending, 'pending');
      await context.adapter.approveOAuthRequest(context.adapterContext, pending);
      await expectState(context, pending, 'approved');
      if (deniedRead) await expectState(context, denied, 'denied');
      const unknown = await context.caller.call('getOAuthRequest', {
        path: { oauth_request_public_id: '00000000-0000-4000-8000-000000000000' },
      });
      expectStatus(unknown, 404, '404 for a request no token of the server created');
      return deniedRead
        ? 'read pending, approved and denied; an unknown request 404'
        : 'read pending and approved; an unknown request 404 (denied not tried: no way to deny)';
    });
  },
};

const expired = 'OAUTH-EXPIRED';

/**
 * A pending request, the clock a day on past its expires: it reads expired, and its user's
 * approval is refused with 404, the request still expired.
 */
async function checkExpired(context: ScenarioContext): Promise<string> {
  const request = await pendingRequest(context, 'expired');
  await context.adapter.advanceClock(context.adapterContext, 86_400);
  await expectState(context, request, 'expired');
  const privateId = request.apiChallengeHref.match(/\/oauth\/([^/]+)\/approve$/)?.[1];
  const approved = await context.caller.call('approveOAuthRequest', {
    path: { oauth_request_private_id: decodeURIComponent(privateId ?? request.privateId) },
  });
  expectStatus(approved, 404, '404: no open OAuth request has this private id (expired)');
  await expectState(context, request, 'expired');
  return 'a day on, the pending request reads expired and its approval is refused with 404';
}

const oauthExpiry: Scenario = {
  name: 'an OAuth request left pending past its expires',
  profile: 'oauth',
  covers: [expired],
  needs: [{ step: 'advanceClock' }],
  // It moves the exchange's clock a day on.
  exclusive: true,
  run: (context) => context.evidence.check(expired, () => checkExpired(context)).then(),
};

export const oauthStateScenarios: Scenario[] = [oauthStates, oauthExpiry];
