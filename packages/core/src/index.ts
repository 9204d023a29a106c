export {
  type ApiToken,
  type OAuthDelegatedPayload,
  type OAuthRequestIds,
  type PartnerDelegatedPayload,
  type ServiceAuthPayload,
  type ServiceAuthRequest,
  type SessionAuthPayload,
  type SessionCredentials,
  serviceAuthPayload,
  signServiceAuth,
  signSessionAuth,
} from './auth/service-auth.js';
export { type DecimalInput, toDecimalString } from './decimal/canonical.js';
export { ExchangeKitError, InvalidDecimalError } from './errors.js';
export {
  type ServiceAuthOptions,
  serviceAuthMiddleware,
  signedPath,
} from './http/auth-middleware.js';
