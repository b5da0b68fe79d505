import type { Services } from '../services';
import { DomainError } from '../errors';
import { merchantBalance, sandboxTopUp } from './ledger';

export async function accountBalance(s: Services, accountId: string) {
  const b = await merchantBalance(s.db.read, accountId);
  return { available: b.available, blocked: b.blocked, currency: 'BRL' as const, timestamp: s.clock.now().toISOString() };
}

export async function sandboxTopUpAccount(s: Services, accountId: string, amount: number) {
  if (!s.config.sandbox) throw new DomainError('NOT_FOUND', 'the sandbox is off');
  await s.db.write((tx) => sandboxTopUp(tx, accountId, amount, s.clock.now()));
  return accountBalance(s, accountId);
}
