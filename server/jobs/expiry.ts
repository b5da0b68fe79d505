import { expireDuePixCharges } from '../domain/transactions/expiry';
import type { Services } from '../services';
import { startJobLoop, type JobLoop } from './runner';

/** Expires due Pix charges (PENDING → REFUSED). Driven by rows, so a restart picks up where it was. */
export function expiryTick(s: Services): () => Promise<number> {
  return () => expireDuePixCharges(s);
}

export function startExpiryLoop(s: Services): JobLoop {
  return startJobLoop('expiry', expiryTick(s), s.config.jobPollMs);
}
