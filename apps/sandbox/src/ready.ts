import type { DemoCredentials } from './config.js';

/**
 * What a sandbox started with an IPC channel (as `@exchange-kit/sandbox/testing` starts it)
 * sends its parent once it answers: where it listens, and with which credentials.
 */
export interface ReadyMessage {
  type: 'exchange-sandbox:ready';
  exchangeUrl: string;
  /** The partner interface's base URL, without /api/v1 (the spec's paths carry it). */
  partnerUrl: string;
  credentials: DemoCredentials;
}
