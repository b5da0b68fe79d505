import type { Config } from '../../config';
import type { PixRail } from './rail';
import { sandboxRail } from './sandbox';

export { type PixKeyEntry, type PixPaymentOrder, type PixPaymentOutcome, type PixRail, type RefundOrder, type RefundOutcome } from './rail';

/**
 * The rail withdrawals go out through. The sandbox is the only one so far; a PSP adapter plugs in here.
 * With the sandbox off and no real rail there is nothing to pay through: null, and batches wait PENDING
 * (money stays in flight) rather than being "paid" by a simulator.
 */
export function railFor(config: Config): PixRail | null {
  return config.sandbox ? sandboxRail(config.sandboxSettlementDelayMs, config.sandboxRailLatencyMs, config.sandboxRailJournal) : null;
}
