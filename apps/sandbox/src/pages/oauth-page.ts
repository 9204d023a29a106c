import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  decideChallenge,
  findChallenge,
  type OAuthChallenge,
  type SignedInUser,
  signIn,
} from '../exchange/oauth.js';
import { oauthPermissions } from '../exchange/users.js';
import type { Serialized } from '../http/reply-cache.js';
import type { Sequencer } from '../state/sequencer.js';
import { type Html, html, page } from './html.js';

/** What each permission an OAuth request asks for lets the application do. */
const permissionMeaning: Record<string, string> = {
  read_accounts: 'See your accounts: balances and deposit addresses in every currency.',
  read_user: 'See your profile: name, email, country and verification status.',
};

// A form is answered within this time or opened again.
const formLifetimeMs = 10 * 60 * 1000;
// Bounds the memory forms left unanswered can take.
const maxOpenForms = 10_000;
// A form holds two short fields; anything larger is not one of ours.
const maxFormBytes = 16 * 1024;

type FormStep =
  | { step: 'sign-in'; publicId: string; expiresAt: number }
  | { step: 'decide'; publicId: string; expiresAt: number; user: SignedInUser };

/**
 * The page at `app_challenge_href`: it names the application and what it asks for, lets a
 * person sign in with a sandbox user's API token and approve or deny. Every form carries a
 * token issued with the page and good for one POST, so a page of another origin cannot post a
 * decision for a signed-in person.
 */
export function oauthPage(options: { sequencer: Sequencer; now: () => number }) {
  const forms = new Map<string, FormStep>();

  function issue(form: FormStep): string {
    const now = options.now();
    for (const [token, kept] of forms) {
      if (kept.expiresAt <= now || forms.size >= maxOpenForms) forms.delete(token);
      else break;
    }
    const token = randomBytes(24).toString('base64url');
    forms.set(token, form);
    return token;
  }

  function take(token: string, publicId: string): FormStep | undefined {
    const form = forms.get(token);
    if (!form) return undefined;
    forms.delete(token);
    if (form.publicId !== publicId || form.expiresAt <= options.now()) return undefined;
    return form;
  }

  const asked = (challenge: OAuthChallenge) => html`
<h1>${challenge.applicationName} asks to act for you</h1>
<p>The application signing with API token <code>${challenge.applicationTokenId}</code> asks for:</p>
<ul id="permissions">${oauthPermissions.map(
    (name) => html`<li><code>${name}</code>: ${permissionMeaning[name] ?? ''}</li>`,
  )}</ul>`;

  function signInPage(challenge: OAuthChallenge, status = 200, error?: string): Serialized {
    const token = issue({
      step: 'sign-in',
      publicId: challenge.publicId,
      expiresAt: options.now() + formLifetimeMs,
    });
    return page(
      status,
      `Approve ${challenge.applicationName}`,
      html`${asked(challenge)}
<h2>Sign in as a sandbox user</h2>
<p>Use a user's API token: the sandbox prints, when it starts, the token id and secret of its demo user and of a second demo user, to try acting for someone else.</p>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post">
<input type="hidden" name="form_token" value="${token}">
<label for="token_id">API token id</label>
<input id="token_id" name="token_id" autocomplete="username" required>
<label for="token_secret">API token secret</label>
<input id="token_secret" name="token_secret" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
    );
  }

  function decidePage(challenge: OAuthChallenge, user: SignedInUser): Serialized {
    const token = issue({
      step: 'decide',
      publicId: challenge.publicId,
      user,
      expiresAt: options.now() + formLifetimeMs,
    });
    return page(
      200,
      `Approve ${challenge.applicationName}`,
      html`${asked(challenge)}
<p id="signed-in">Signed in as ${user.name} (${user.email}), user ${user.userId}.</p>
<form method="post">
<input type="hidden" name="form_token" value="${token}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    );
  }

  const message = (status: number, title: string, body: Html) =>
    page(status, title, html`<h1>${title}</h1>${body}`);

  const unknown = () =>
    message(
      404,
      'No OAuth request here',
      html`<p>No request has this address. The application can create a new one.</p>`,
    );

  // Approving takes one user, and a request approved is not denied afterwards.
  const alreadyApproved = () =>
    message(409, 'Already approved', html`<p>This request is already approved.</p>`);

  /** How a request that takes no answer any more ended, or undefined while it is open. */
  function closed(challenge: OAuthChallenge): Serialized | undefined {
    if (challenge.status === 'denied') {
      return message(
        410,
        'Denied',
        html`<p id="outcome">This request was denied: ${challenge.applicationName} was not given access. The application can create a new request.</p>`,
      );
    }
    if (challenge.status === 'expired') {
      return message(
        410,
        'Expired',
        html`<p id="outcome">This request expired before it was answered, or its approval ran out. The application can create a new one.</p>`,
      );
    }
    return undefined;
  }

  return async function answer(request: IncomingMessage, publicId: string): Promise<Serialized> {
    const now = options.now();
    const challenge = findChallenge(options.sequencer.state, publicId, now);
    if (!challenge) return unknown();
    const ended = closed(challenge);
    if (ended) return ended;
    if (request.method === 'GET' || request.method === 'HEAD') return signInPage(challenge);
    if (request.method !== 'POST') {
      const refused = message(405, 'Method not allowed', html``);
      refused.headers.allow = 'GET, HEAD, POST';
      return refused;
    }

    const form = await readForm(request);
    const step = form && take(form.get('form_token') ?? '', challenge.publicId);
    if (!form || !step) {
      return message(
        403,
        'This form is no longer valid',
        html`<p>Each form is good for one answer within ten minutes. <a href="">Open the request again</a>.</p>`,
      );
    }
    if (step.step === 'sign-in') {
      const user = signIn(
        options.sequencer.state,
        form.get('token_id') ?? '',
        form.get('token_secret') ?? '',
      );
      if (!user) return signInPage(challenge, 401, 'That API token id and secret do not match.');
      if (challenge.approvedByUserId !== null && challenge.approvedByUserId !== user.userId) {
        return alreadyApproved();
      }
      return decidePage(challenge, user);
    }

    const decision = form.get('decision');
    if (decision !== 'approve' && decision !== 'deny') return decidePage(challenge, step.user);
    const done = await options.sequencer.run((journal) =>
      decideChallenge(journal, challenge.publicId, step.user.userId, decision, options.now()),
    );
    if (!done) {
      // Closed meanwhile, or approved (by another user, or in another tab).
      const after = findChallenge(options.sequencer.state, challenge.publicId, options.now());
      return (after && closed(after)) ?? alreadyApproved();
    }
    return decision === 'approve'
      ? message(
          200,
          'Approved',
          html`<p id="outcome">${challenge.applicationName} may now read your user context and accounts until the request expires. You can close this page.</p>`,
        )
      : message(
          200,
          'Denied',
          html`<p id="outcome">${challenge.applicationName} was not given access, and this request is closed. You can close this page.</p>`,
        );
  };
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxFormBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
