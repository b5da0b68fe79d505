// The id-prefix map (pure: server/domain/ids.ts draws the random part with node:crypto).

/** Every identifier carries a prefix from this one map, so a stray id says what it is. */
export const ID_PREFIX = {
  account: 'acc',
  accessToken: 'tok',
  dashboardUser: 'usr',
  session: 'ses',
  auditEntry: 'aud',
  ledgerBook: 'lbk',
  ledgerEntry: 'lje',
  event: 'evt',
  withdrawal: 'wd',
  batch: 'wdb',
  transaction: 'txn',
  invoice: 'inv',
  customer: 'cus',
  dispute: 'dsp',
  webhook: 'wh',
  delivery: 'dlv',
  refund: 'rf',
  pixKey: 'pxk',
  pixApiClient: 'pxc',
  pixApiToken: 'pxt',
  pixCharge: 'pch',
  // a statement movement is a ledger line; its id is this prefix and the line's sequence number
  ledgerLine: 'lnl',
} as const;

export type IdKind = keyof typeof ID_PREFIX;
