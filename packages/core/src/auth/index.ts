/** Signing: X-Service-Auth and session JWTs. Server side, or wherever a secret may live. */

export { type CallSigning, callSigningOf, type OperationAuth } from '../http/call-signing.js';
export {
  type ServiceAuthOptions,
  serviceAuthenticator,
  sessionAuthenticator,
} from './authenticate.js';
export {
  type ApiToken,
  type OAuthDelegatedPayload,
  type OAuthRequestIds,
  type PartnerDelegatedPayload,
  type ServiceAuthPayload,
  type ServiceAuthRequest,
  type SessionAuthPayload,
  type SessionCredentials,
  serviceAuthJwt,
  serviceAuthPayload,
  sessionAuthJwt,
  signAuthPayload,
  signServiceAuth,
  signSessionAuth,
} from './service-auth.js';
