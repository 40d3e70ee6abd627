// How a command loads and changes a transfer: its actor and row together, an event applied and
// written, the cancel that returns a waiting transfer's escrow, and the sender's own transfer checked.
import type { CommandRunner, Unit } from '../actors/command.ts';
import { expireLandedIn } from '../designs/expiry.ts';
import { failure, type Failure } from '../ledger/errors.ts';
import { returnEscrowIn } from './gate.ts';
import { bornFinalSnapshot, rowState, transfer, type TransferEvent, type TransferStateName } from './machine.ts';
import * as store from './store.ts';
import type { Queryable } from '../storage/database.ts';

export async function applyIn(unit: Unit, transferId: string, event: TransferEvent, change: Partial<store.TransferChange> = {}): Promise<boolean> {
  const next = unit.send(transfer, transferId, event);
  if (!next) return false;
  await store.updateTransfer(unit.tx, transferId, { ...rowState(next), reason: next.context.reason, ...change }, unit.now);
  return true;
}

/** How the command path restores a transfer born final (it keeps no actor row) from its transfers row. */
export function restoreBornFinalFromRows(commands: CommandRunner): void {
  commands.restoreRowless(transfer, async (tx, id) => {
    const row = await store.selectTransfer(tx, id);
    if (!row || !(row.completed || row.canceled)) return null;
    return bornFinalSnapshot({ workflowType: row.workflow_type, completed: row.completed, activityCount: row.activity_count, endAt: row.end_at?.toISOString() ?? null, reason: row.reason });
  });
}

/** Loads a transfer actor and its row inside a command; null when missing. */
export async function findIn(unit: Unit, transferId: string) {
  const snapshot = await unit.load(transfer, transferId);
  const row = await store.selectTransfer(unit.tx, transferId);
  return snapshot && row ? { snapshot, row, state: snapshot.value as TransferStateName } : null;
}

/** Loads a transfer actor and its row inside a command; rejects when missing. */
export async function loadIn(unit: Unit<Failure>, transferId: string) {
  return (await findIn(unit, transferId)) ?? unit.reject(failure('transfer_not_found'));
}

/** Ends a waiting transfer and returns its escrow to the sender. */
export async function cancelIn(unit: Unit, transferId: string, senderId: string, event: TransferEvent): Promise<boolean> {
  if (!(await applyIn(unit, transferId, event))) return false;
  await returnEscrowIn(unit, transferId, senderId);
  // Brand cash whose expiry passed while it waited in escrow expires as it lands (expiry is final).
  await expireLandedIn(unit, senderId);
  const paycode = await store.selectPaycodeByTransfer(unit.tx, transferId);
  if (paycode && paycode.state === 'active') await store.updatePaycode(unit.tx, transferId, { state: 'ended' }, unit.now);
  for (const name of ['paycode_expire', 'invite_expire', 'hold_end', 'trade_expire', 'bill_expire', 'bill_remind']) unit.cancelTimer(transfer, transferId, name);
  return true;
}

/** The transfer a sender acts on: one it views and initiated. */
export async function sentByCaller(db: Queryable, callerId: string, transferId: string): Promise<{ ok: true; row: store.TransferRow } | Failure> {
  const row = await store.selectTransfer(db, transferId);
  if (!row || !(await store.isViewer(db, transferId, callerId))) return failure('transfer_not_found');
  if (row.sender_id !== callerId) return failure('not_initiator');
  return { ok: true, row };
}
