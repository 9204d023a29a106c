/** The partner's public API key, set by the example server (public: it may be in the page). */
declare const __PUBLIC_API_KEY__: string;
