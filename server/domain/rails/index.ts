import type { Config } from '../../config';
import type { PixRail } from './rail';
import { sandboxRail } from './sandbox';

export type { PixPaymentOrder, PixPaymentOutcome, PixRail } from './rail';

/** The rail withdrawals go out through. The sandbox is the only one so far; a PSP adapter plugs in here. */
export function railFor(config: Config): PixRail {
  return sandboxRail(config.sandboxSettlementDelayMs);
}
