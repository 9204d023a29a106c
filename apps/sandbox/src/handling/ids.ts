import { zUuid } from '@exchange-kit/contract/partner/schemas';

/**
 * The one spelling of an id the specs give as a UUID (sessions, intents, transactions,
 * settlement instructions, OAuth requests). UUIDs compare without regard to case (RFC 9562),
 * so every lookup, every key and every nonce scope built from one takes this form: two
 * spellings of an id name one record and spend one nonce sequence. Undefined for anything that
 * is not a UUID, which names no record. API token ids are not UUIDs: they are kept and
 * compared exactly as issued.
 */
export function canonicalUuid(value: unknown): string | undefined {
  const id = zUuid.safeParse(value);
  return id.success ? id.data.toLowerCase() : undefined;
}
