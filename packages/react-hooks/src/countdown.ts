import { expiresInMs, type SettlementInstruction } from '@exchange-kit/partner-client';
import { useEffect, useState } from 'react';

export interface SettlementCountdown {
  /** Milliseconds left before the instruction expires; undefined when it does not expire. */
  msLeft: number | undefined;
  /** Whole seconds left, rounded up, for display. */
  secondsLeft: number | undefined;
  expired: boolean;
}

/** Counts down to an instruction's expiry, updating each second until it has expired. */
export function useSettlementCountdown(
  instruction: SettlementInstruction | undefined,
): SettlementCountdown {
  const [now, setNow] = useState(Date.now);
  const expiresAt = instruction?.expires?.unix_ms;

  useEffect(() => {
    if (expiresAt === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const current = Date.now();
      setNow(current);
      const left = expiresAt - current;
      // The next update lands when the displayed second changes, and the last one at expiry.
      if (left > 0) timer = setTimeout(tick, left % 1_000 || 1_000);
    };
    tick();
    return () => clearTimeout(timer);
  }, [expiresAt]);

  const msLeft = instruction ? expiresInMs(instruction, now) : undefined;
  return {
    msLeft,
    secondsLeft: msLeft === undefined ? undefined : Math.ceil(msLeft / 1_000),
    expired: msLeft === 0,
  };
}
