import { DomainError, validationError, type FieldIssue } from '../../errors';
import { wake, type Services } from '../../services';
import { recordEvent } from '../events';
import { checkIdempotencyKey, requestFingerprint, runIdempotent, type IdempotentCreateOptions, type IdempotentOperation, type IdempotentResult } from '../idempotency';
import { newId } from '../ids';
import { refusalError, transfer } from '../ledger';
import { normalizeDocument } from '../../../contract/pix/documents';
import type { PixKeyType } from '../../../contract/pix/keys';
import { railFor } from '../rails';
import { checkWebhookUrl } from '../webhooks/url-guard';
import { MAX_BATCHES_PER_WITHDRAWAL, batchCount, splitIntoBatches } from './rules';
import { requestedWithdrawalView } from './view';

/** The idempotency scope: REST and tRPC callers share one key space per operation. */
const OPERATION: IdempotentOperation = 'withdrawal.create';

/**
 * The body of POST /withdraw/pix as the schema (server/routers/withdrawals/schemas.ts) leaves it: the
 * shape, the key by the rules of its type (in its canonical spelling) and the document's check digits
 * are checked there, once.
 */
export interface WithdrawalRequest {
  amount: number;
  /** Canonical for its key_type. */
  key: string;
  key_type: PixKeyType;
  description?: string | null;
  details: { name: string; document: string };
  postback?: string | null;
  external_ref?: string | null;
}

/** What a requested withdrawal is, plainly: the procedure shapes the spec's WITHDRAW_REQUEST from it. */
export interface WithdrawalCreated {
  withdrawal: { id: string; amount: number; created_at: string };
  /** In order: full batches, then the remainder; every one PENDING. */
  batches: { identifier: string; amount: number }[];
}

interface Checked {
  document: string;
}

/** The rules that depend on this server: the batch cap (configured) and the postback's address (SSRF). */
async function checkRequest(s: Services, input: WithdrawalRequest): Promise<Checked> {
  const issues: FieldIssue[] = [];
  const maxBatch = s.config.pixMaxBatchCents;
  if (batchCount(input.amount, maxBatch) > MAX_BATCHES_PER_WITHDRAWAL) {
    issues.push({ path: 'amount', message: `must be at most ${MAX_BATCHES_PER_WITHDRAWAL * maxBatch} cents (${MAX_BATCHES_PER_WITHDRAWAL} batches of ${maxBatch})` });
  }
  if (input.postback) {
    // before the write job: this may resolve DNS, and the writer never waits on the network
    const url = await checkWebhookUrl(input.postback, { allowPrivate: s.config.webhookAllowPrivateUrls });
    if (!url.ok) issues.push({ path: 'postback', message: url.reason });
  }
  if (issues.length) throw validationError(issues);
  return { document: normalizeDocument(input.details.document) };
}

/**
 * POST /withdraw/pix. One write job debits the whole amount (available → withdrawals_in_flight),
 * stores the withdrawal and its batches, records `withdraw.requested` and stores the idempotent answer;
 * if the balance does not cover it, nothing at all is written.
 */
export async function createWithdrawal(
  s: Services,
  accountId: string,
  input: WithdrawalRequest,
  opts: IdempotentCreateOptions = {},
): Promise<IdempotentResult<WithdrawalCreated>> {
  const idempotencyKey = checkIdempotencyKey(opts.idempotencyKey);
  const rail = railFor(s.config);
  // only a keyed request is ever compared with a stored one
  const fingerprint = idempotencyKey === null ? '' : requestFingerprint(s.masterKey, OPERATION, input);
  const externalRef = input.external_ref ?? null;

  // a replay answers what was stored, even if the rules or a DNS answer have changed since: checkRequest
  // runs only for a request that is not one
  const answer = await runIdempotent<WithdrawalCreated, Checked>(
    s, { accountId, operation: OPERATION, key: idempotencyKey }, fingerprint,
    async (tx, checked) => {
      const at = s.clock.now();
      const iso = at.toISOString();
      // (on PostgreSQL another instance may be creating the same reference right now: the store waits for it, then looks)
      if (externalRef !== null && await tx.withdrawals.externalRefTaken(accountId, externalRef)) {
        throw new DomainError('DUPLICATE_EXTERNAL_REF', 'external_ref: another withdrawal of this account already uses it', {
          issues: [{ path: 'external_ref', message: 'already used by another withdrawal' }],
        });
      }
      const id = newId('withdrawal');
      // the debit first: most refusals are for funds, and they should cost as little as possible. A refusal
      // fails the job (nothing of it is written); the store may send the debit without waiting for it, with
      // the rows below
      await transfer(tx, {
        accountId, kind: 'withdrawal_requested', resourceId: id, amount: input.amount, at,
        from: { account: accountId, book: 'available' }, to: { account: accountId, book: 'withdrawals_in_flight' },
        description: 'Pix withdrawal requested',
      }, (refusal) => refusal === 'below_floor'
        ? new DomainError('INSUFFICIENT_FUNDS', `the available balance does not cover ${input.amount} cents`)
        : refusalError(refusal));
      const row = {
        id, amount: input.amount, key: input.key, keyType: input.key_type,
        description: input.description ?? null, detailsName: input.details.name, detailsDocument: checked.document,
        postback: input.postback ?? null, externalRef, createdAt: iso, updatedAt: iso,
      };
      // without a rail the batch is due at once: whichever rail is configured next picks it up
      const dueAt = (rail ? rail.firstAttemptAt(at) : at).toISOString();
      const batches = splitIntoBatches(input.amount, s.config.pixMaxBatchCents).map((amount, seq) => ({ id: newId('batch'), seq, amount }));
      await tx.withdrawals.insertWithdrawalWithBatches({ ...row, accountId }, batches, dueAt, s.instance);
      // the payload from what was just written, not read back: two reads fewer per request (the event
      // test compares it with the GET)
      await recordEvent(tx, { accountId, type: 'withdraw.requested', resourceId: id, payload: requestedWithdrawalView(row, batches), at });
      return {
        withdrawal: { id, amount: input.amount, created_at: iso },
        batches: batches.map((b) => ({ identifier: b.id, amount: b.amount })),
      };
    },
    () => checkRequest(s, input),
  );
  if (!answer.replayed) wake(s, 'settlement');
  return answer;
}
