/** The server under test and the credentials the suite signs its calls with. */
export interface Target {
  /** Base URL of the exchange interface; spec paths are appended to it. */
  exchangeUrl: string;
  /** Base URL of the partner interface; spec paths (which start with /api/v1) are appended. */
  partnerUrl: string;
  tokenId: string;
  tokenSecret: string;
  publicApiKey: string;
  /**
   * The websocket URL of the events; by default the exchange's host at the path the AsyncAPI
   * document gives.
   */
  eventsUrl?: string;
}
