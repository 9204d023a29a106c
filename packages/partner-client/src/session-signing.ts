/**
 * Signs the calls of one user session with its session_secret. Loaded only once a session
 * client signs its first call, so a page that never does carries no signing code.
 */
import { type SessionCredentials, sessionAuthenticator } from '@exchange-kit/core/auth';

export { type SessionCredentials, sessionAuthenticator };
