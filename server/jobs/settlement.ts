import type { PixRail } from '../domain/rails';
import { runSettlementPass } from '../domain/withdrawals/settle';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';

/**
 * Settles due withdrawal batches through the Pix rail. Driven by due rows only, so it resumes after a
 * restart; woken by createWithdrawal, otherwise it looks every JOB_POLL_MS.
 */
export function startSettlementLoop(s: Services, rail: PixRail): JobLoop {
  return startJobLoop('settlement', () => runSettlementPass(s, rail), s.config.jobPollMs);
}
