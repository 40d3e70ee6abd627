// Expiry is final: the sweeper moves a design's due notes out of circulation (movement `expire`,
// back to the issuer) and releases their reserve to the issuer; notes that come back from escrow
// after their expiry (a retracted trade, a canceled send) are expired as they land, in the command
// that returns them. Until then allocation never picks a note past its expiry (engine/ledger/allocation.ts).
import type { Unit } from '../actors/command.ts';
import { sumPicks, type Pick } from '../ledger/allocation.ts';
import { escrowPicks, walletHolder } from '../ledger/cash.ts';
import { dueNotes, dueNotesForUpdate, expiredNotesAmong, nextExpiryOf, type DueNoteRow } from '../ledger/reads.ts';
import { designExpiryBatchMax, escrowedExpiryRetryMs } from '../limits.ts';
import { money } from '../money.ts';
import { passGate } from '../transfers/gate.ts';
import { designKind } from './machine.ts';
import { releaseReserve } from './reserve.ts';
import * as store from './store.ts';
import { sendFailure, type Failure, type SendError } from '../ledger/errors.ts';

/** What a holder's expiry found under the locks: nothing when the notes left the wallet before the balances were locked. */
const nothingDue = sendFailure([]);

/**
 * One holder's due notes of one design leave circulation in one `expire` transfer; their reserve
 * goes to the issuer. The gate locks the holder's and the issuer's balances first, then the notes
 * are read again row-locked (the gate's order: balances before notes).
 */
async function expireHolderIn(unit: Unit, design: store.DesignRow, holderId: string, limit: number): Promise<number> {
  const transferId = await unit.newLongId('transfer');
  let due: DueNoteRow[] = [];
  const passed = await passGate(unit, {
    kind: 'sink',
    transferId,
    balances: { profileIds: [holderId, design.issuer_id], currencies: [design.currency] },
    // The sweeper moves cash by the design's expiry rule.
    authority: { off: 'no_caller' },
    // One transfer per holder and sweep.
    dedup: { off: 'no_request' },
    cash: async () => {
      due = await dueNotesForUpdate(unit.tx, holderId, design.id, unit.now, limit);
      if (due.length === 0) return nothingDue;
      return due.map((note) => ({ serial: note.serial, loopId: design.id, issuerId: note.issuer_id, money: money(note.currency, note.amount), whole: true }));
    },
    holding: { off: 'leaves_circulation' },
    transfer: {
      ended: {
        workflowType: 'expire', senderId: holderId, recipientId: design.issuer_id, currency: design.currency, details: { design_id: design.id },
      },
      views: holderId === design.issuer_id ? [{ profileId: holderId, role: 'sender' }] : [{ profileId: holderId, role: 'sender' }, { profileId: design.issuer_id, role: 'recipient' }],
    },
    move: {
      from: walletHolder(holderId), to: { kind: 'expired', id: design.id },
      lines: (picks) => [{ number: 1, action: 'expire', fromId: holderId, toId: design.issuer_id, loopId: design.id, issuerId: design.issuer_id, money: sumPicks(picks, design.currency) }],
    },
    after: async () => {
      const reserve = due.reduce((total, note) => total + note.reserve, 0n);
      if (reserve > 0n) await releaseReserve(unit, design.id, money(design.currency, reserve), design.issuer_id, { transferId, number: 2, action: 'release' });
    },
  });
  if (passed === nothingDue) return 0;
  if (!passed.ok) throw new Error(`expiry of design ${design.id} refused by the gate: ${passed.error}`);
  return due.length;
}

function byHolder<T extends { holder_id: string }>(notes: readonly T[], key: (note: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const note of notes) groups.set(key(note), [...(groups.get(key(note)) ?? []), note]);
  return groups;
}

/**
 * Expires the design's due notes held in wallets: per holder one `expire` transfer. Reschedules
 * itself for the next expiry; notes due while in escrow are tried again later (and expire as they
 * land if they come back first).
 */
export async function expireDueIn(unit: Unit, designId: string): Promise<number> {
  const design = await store.selectDesign(unit.tx, designId);
  if (!design) return 0;
  // Whom to visit is read without a lock; each holder's notes are locked after its balances.
  const due = await dueNotes(unit.tx, { loopId: designId }, unit.now, designExpiryBatchMax);
  let expired = 0;
  for (const holderId of byHolder(due, (note) => note.holder_id).keys()) {
    if (expired < designExpiryBatchMax) expired += await expireHolderIn(unit, design, holderId, designExpiryBatchMax - expired);
  }
  const next = await nextExpiryOf(unit.tx, designId);
  if (next) {
    const dueAt = next > unit.now ? next : new Date(unit.now.getTime() + escrowedExpiryRetryMs);
    unit.schedule(designKind, designId, `expire:${dueAt.toISOString()}`, dueAt, { type: 'design.expire_due', at: dueAt.toISOString() });
  }
  return expired;
}

/** Escrowed cash released to a new holder (a trade or an invitation accepted) must not be past its expiry: refused, it stays for the sender. */
export async function expiredReleaseProblem(unit: Unit, picks: readonly { serial: bigint }[]): Promise<SendError | null> {
  if ((await expiredNotesAmong(unit.tx, picks.map((pick) => pick.serial), unit.now)) === 0) return null;
  return { code: 'cash_expired', field_name: 'transfer_id', info: { reason: 'brand cash in this transfer expired while it waited; it goes back to the sender and out of circulation' } };
}

/** All of a transfer's escrow for its new holder (an accepted invitation or trade), refused when some of it expired while it waited. */
export async function unexpiredEscrowPicks(unit: Unit, transferId: string): Promise<Pick[] | Failure> {
  const { picks } = await escrowPicks(unit.tx, transferId, null);
  const expired = await expiredReleaseProblem(unit, picks);
  return expired ? sendFailure([expired]) : picks;
}

/** Inside the command that returned escrowed cash to a wallet: its brand cash past expiry leaves circulation now. */
export async function expireLandedIn(unit: Unit, holderId: string): Promise<number> {
  const due = await dueNotes(unit.tx, { holderId }, unit.now, designExpiryBatchMax);
  let expired = 0;
  for (const designId of byHolder(due, (note) => note.loop_id).keys()) {
    const design = await store.selectDesign(unit.tx, designId);
    if (!design) throw new Error(`brand cash of a missing design ${designId}`);
    if (expired < designExpiryBatchMax) expired += await expireHolderIn(unit, design, holderId, designExpiryBatchMax - expired);
  }
  return expired;
}
