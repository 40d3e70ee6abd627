// Registered bank (DFI) accounts: adding one, and listing them as JSON with the account number
// redacted.
import { failure, type Failure } from '../ledger/errors.ts';
import { redeemersListMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { PayoutsContext } from './context.ts';
import * as store from './store.ts';

/** A bank account as a caller describes it; the service adds its id, owner and registration. */
export type AccountInput = Omit<store.NewDfiAccount, 'id' | 'profileId' | 'registered'>;

export function redactAccountNumber(accountNumber: string): string {
  return `${'X'.repeat(Math.max(0, accountNumber.length - 2))}${accountNumber.slice(-2)}`;
}

function accountJson(row: store.DfiAccountRow): Record<string, unknown> {
  return {
    id: row.id, redacted_account_num: redactAccountNumber(row.account_number), rdfi_name: row.rdfi_name, alias: row.alias,
    ach_type: row.ach_type, currency: row.currency,
  };
}

export async function addAccount(ctx: PayoutsContext, profileId: string, input: AccountInput): Promise<{ ok: true; accountId: string } | Failure> {
  const { sql, commands } = ctx.core;
  if (!(await ctx.profiles.get(sql, profileId))) return failure('named_profile_not_found');
  return commands.run('payout.account_add', [{ kind: 'wallet', id: profileId }], async (unit) => {
    const accountId = await unit.newShortId('dfi_account');
    await store.insertAccount(unit.tx, { id: accountId, profileId, registered: true, ...input }, unit.now);
    return { ok: true as const, accountId };
  });
}

export async function accountsJson(db: Queryable, profileId: string): Promise<Record<string, unknown>[]> {
  return (await store.selectRegisteredAccounts(db, profileId, redeemersListMax)).map(accountJson);
}
