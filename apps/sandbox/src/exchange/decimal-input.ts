/**
 * Long enough for any real price, quantity or rate: beyond it a decimal a caller sends is a
 * mistake, refused as `too_long` before anything is worked out from it.
 */
export const maxDecimalLength = 32;
