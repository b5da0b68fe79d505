import type { PixRail } from '../domain/rails';
import { REFUND_SETTLEMENT_JOB, runRefundPass } from '../domain/transactions/refunds';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';

/** Settles due refunds through the rail; driven by due rows only, woken by refundTransaction. */
export function startRefundSettlementLoop(s: Services, rail: PixRail): JobLoop {
  return startJobLoop(REFUND_SETTLEMENT_JOB, () => runRefundPass(s, rail), s.config.jobPollMs);
}
