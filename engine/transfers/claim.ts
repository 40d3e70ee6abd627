// The first step of a send that escrows cash in its own command (a trade, a payout): the dedup key
// is claimed (a repeat rejects as a duplicate, the caller answers the first transfer) and the
// sender's wallet must be active.
import type { Unit } from '../actors/command.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { dedupWindowMs } from '../limits.ts';
import { wallet } from '../profiles/machine.ts';
import * as store from './store.ts';

export async function claimSend(unit: Unit<Failure | Duplicate>, senderId: string, dedupId: string | undefined, transferId: string): Promise<void> {
  const at = unit.now;
  if (dedupId !== undefined && !(await store.claimDedup(unit.tx, senderId, dedupId, transferId, at, new Date(at.getTime() - dedupWindowMs)))) {
    unit.reject(duplicate());
  }
  const senderWallet = await unit.load(wallet, senderId);
  if (!senderWallet || senderWallet.value !== 'active') {
    unit.reject(sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderWallet?.value ?? null } }]));
  }
}
