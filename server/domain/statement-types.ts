// Pure constants (no database): the statement's zod contract imports them.

/** docs/decisions.md "Statement": what a movement of the available book is. */
export const STATEMENT_TYPES = [
  'topup', 'charge_approved', 'withdrawal_requested', 'withdrawal_returned',
  'refund_requested', 'refund_returned', 'dispute_hold', 'dispute_released',
] as const;
export type StatementType = (typeof STATEMENT_TYPES)[number];

/** What a movement's `resource` names. */
export const STATEMENT_RESOURCE_TYPES = ['topup', 'transaction', 'withdrawal', 'withdrawal_batch', 'refund', 'dispute'] as const;
export type StatementResourceType = (typeof STATEMENT_RESOURCE_TYPES)[number];

export const STATEMENT_MAX_LIMIT = 200;
export const STATEMENT_DEFAULT_LIMIT = 50;
