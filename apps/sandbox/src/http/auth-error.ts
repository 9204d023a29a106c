/** An authentication refusal: 401 with one of the conventional plain-text bodies. */
export class AuthError extends Error {}
