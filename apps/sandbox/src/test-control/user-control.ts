import { type Serialized, uncachedJson } from '../http/reply-cache.js';
import { addUser } from '../seeding.js';
import { refused } from './control-answers.js';
import type { ControlCall } from './control-route.js';

/** What a user's first name may be: the interfaces show it in the user context. */
const firstNameLength = 100;

/**
 * `POST /test/users` with `{}` (or `{"first_name": "Alice"}`) adds a user with the starting
 * balances of the demo users and an API token: a third party for a bot to trade with. It
 * answers the user's id and the token's id and secret, which sign its calls; the secret is
 * given here alone, as the start-up banner gives the demo users'.
 */
export async function addTestUser({ sequencer, clock, body }: ControlCall): Promise<Serialized> {
  const { first_name: firstName } = body;
  if (firstName !== undefined) {
    if (typeof firstName !== 'string') return refused('first_name', 'must_be_a_string');
    if (firstName.length === 0 || firstName.length > firstNameLength) {
      return refused('first_name', 'must_be_1_to_100_characters');
    }
    if (firstName.includes('\u0000')) return refused('first_name', 'must_not_contain_nul');
  }
  const user = await sequencer.run((journal) => addUser(journal, { now: clock.now(), firstName }));
  return uncachedJson(200, {
    user_id: user.userId,
    token_id: user.tokenId,
    token_secret: user.tokenSecret,
  });
}
