// Redemption: brand cash that reaches a redeemer (a profile with an active redeemer agreement,
// other than the design's issuer: by a send, a pull at its terminal or a processor's send) leaves
// circulation in the same command and settles per the plan it was distributed under. The plan's
// after-redemption rows are its settlement terms (a plan without any settles on the default terms:
// the redeemer is owed the face value). What the notes' reserve covers is paid at once from the
// design's reserve (static rows first, the redeemer the rest); what it does not cover stays owed
// as pending settlement rows until a settler of the design pays them (engine/pos/settlement.ts).
// Every part is a settlement row, and the redeemer's part a row of its received-and-receivable report.
import type { Unit } from '../actors/command.ts';
import { sumPicks, type Pick as LedgerPick } from '../ledger/allocation.ts';
import { walletHolder } from '../ledger/cash.ts';
import { arrivedNotesForUpdate, type ArrivedNote } from '../ledger/reads.ts';
import { redeemOnArrivalNotesMax } from '../limits.ts';
import { addMoney, money, subtractMoney, sumMoney, zeroMoney, type Money } from '../money.ts';
import { passGate } from '../transfers/gate.ts';
import { settlementKind } from '../pos/machine.ts';
import type { NewReceivable, NewSettlement } from '../pos/types.ts';
import { recordReceivables, recordSettlements } from '../pos/records.ts';
import { releaseReserve, percentagePpm, ppmWhole } from './reserve.ts';
import * as store from './store.ts';
import type { PlanRecipient } from './store.ts';


/** The terminal a redemption was taken at (the calling token's device), for the report. */
export interface PosDevice {
  holderId: string;
  deviceId: string;
}

/** The POS device of a caller: its token's device, held by the person at the terminal (else the profile). */
export function posDeviceOf(caller: { profileId: string; personalProfileId?: string | null; deviceId?: string | null }): PosDevice | null {
  return caller.deviceId ? { holderId: caller.personalProfileId ?? caller.profileId, deviceId: caller.deviceId } : null;
}

export interface RedeemInput {
  transferId: string;
  redeemerId: string;
  designIds: readonly string[];
  number: number;
  posDevice?: PosDevice | null;
}

/** One recipient's share of a redemption under a plan's terms (pure). */
export interface Owed {
  role: 'redeemer' | 'static';
  recipientId: string;
  money: Money;
}

/** What redeeming `amount` under the plan's rows owes, per after-redemption row (pure). */
export function owedUnder(recipients: readonly PlanRecipient[] | null, designId: string, redeemerId: string, amount: Money): Owed[] {
  const after = (recipients ?? []).filter((row) => row.loop_id === designId);
  const terms: PlanRecipient[] = after.length > 0 ? after : [{ percentage: '100', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' }];
  return terms.map((row) => ({
    role: row.recipient_type === 'static' ? 'static' as const : 'redeemer' as const,
    recipientId: row.recipient_type === 'static' ? row.recipient_id : redeemerId,
    money: money(amount.currency, (amount.minor * percentagePpm(row.percentage)) / ppmWhole),
  }));
}

/** How the notes' reserve pays what is owed: static rows first, the redeemer all that is left (pure). */
export function fundFromReserve(owed: readonly Owed[], reserve: Money): { owed: Owed; funded: Money; pending: Money }[] {
  const { currency } = reserve;
  let left = reserve;
  const parts: { owed: Owed; funded: Money; pending: Money }[] = [];
  for (const row of owed.filter((entry) => entry.role === 'static')) {
    const funded = row.money.minor < left.minor ? row.money : left;
    left = subtractMoney(left, funded);
    parts.push({ owed: row, funded, pending: subtractMoney(row.money, funded) });
  }
  const redeemerOwed = sumMoney(owed.filter((entry) => entry.role === 'redeemer').map((entry) => entry.money), currency);
  const redeemerId = owed.find((entry) => entry.role === 'redeemer')?.recipientId;
  if (redeemerId !== undefined || left.minor > 0n) {
    const funded = left;
    parts.push({ owed: { role: 'redeemer', recipientId: redeemerId ?? '', money: redeemerOwed }, funded, pending: redeemerOwed.minor > funded.minor ? subtractMoney(redeemerOwed, funded) : zeroMoney(currency) });
  }
  return parts;
}

/** Notes of one design redeemed together that came from one distribution (and so one plan). */
interface Lot {
  planId: string | null;
  distTid: string | null;
  money: Money;
  /** The open loop cash the notes' reserve holds, in the same currency. */
  reserve: Money;
}

/** Groups a design's redeemed notes by the distribution they came from (pure). */
export function lotsOf(notes: readonly Pick<ArrivedNote, 'plan_id' | 'dist_transfer_id' | 'currency' | 'amount' | 'reserve'>[]): Lot[] {
  const lots = new Map<string, Lot>();
  for (const note of notes) {
    const key = `${note.plan_id ?? ''}/${note.dist_transfer_id ?? ''}`;
    const lot = lots.get(key) ?? { planId: note.plan_id, distTid: note.dist_transfer_id, money: zeroMoney(note.currency), reserve: zeroMoney(note.currency) };
    lots.set(key, { ...lot, money: addMoney(lot.money, money(note.currency, note.amount)), reserve: addMoney(lot.reserve, money(note.currency, note.reserve)) });
  }
  return [...lots.values()];
}

/** Redeems the redeemer's brand cash of the given designs; returns the next free movement number. */
export async function redeemArrivedIn(unit: Unit, input: RedeemInput): Promise<number> {
  const notes = await arrivedNotesForUpdate(unit.tx, input.redeemerId, input.designIds, redeemOnArrivalNotesMax);
  let number = input.number;
  const byDesign = new Map<string, ArrivedNote[]>();
  for (const note of notes) byDesign.set(note.loop_id, [...(byDesign.get(note.loop_id) ?? []), note]);
  const settlements: NewSettlement[] = [];
  const receivables: NewReceivable[] = [];
  for (const [designId, designNotes] of byDesign) {
    const { currency, issuer_id: issuerId } = designNotes[0];
    const picks: LedgerPick[] = designNotes.map((note) => ({ serial: note.serial, loopId: designId, issuerId, money: money(currency, note.amount), whole: true }));
    const redeemed = sumPicks(picks, currency);
    const redeemNumber = number;
    const passed = await passGate(unit, {
      kind: 'sink',
      transferId: input.transferId,
      authority: { off: 'brand_cash_only' },
      cash: picks,
      holding: { off: 'leaves_circulation' },
      transfer: { off: 'recorded_by_path' },
      move: {
        from: walletHolder(input.redeemerId), to: { kind: 'redeemed', id: input.transferId },
        lines: () => [{ number: redeemNumber, action: 'redeem', fromId: input.redeemerId, toId: issuerId, loopId: designId, issuerId, money: redeemed }],
      },
    });
    if (!passed.ok) throw new Error(`a redemption is refused by no rung: ${passed.error}`);
    number += 1;
    for (const lot of lotsOf(designNotes)) {
      const settled = await settleLotIn(unit, input, { designId, currency, lot, number }, settlements);
      number = settled.number;
      const settlesTo = settled.funded + settled.pending;
      receivables.push({
        profileId: input.redeemerId, transferId: input.transferId, posDeviceHolderId: input.posDevice?.holderId ?? null, posDeviceId: input.posDevice?.deviceId ?? null,
        distTid: lot.distTid, settlementType: 'redeem', receivedCurrency: currency, settleCurrency: currency, loopId: designId, isFundable: settlesTo > 0n, tenderType: 'service',
        receivedAmount: lot.money.minor, settleFunded: settled.funded, settleReclaimed: lot.money.minor > settlesTo ? lot.money.minor - settlesTo : 0n, settlePending: settled.pending, settleSettled: 0n,
      });
    }
  }
  await recordSettlements(unit.tx, settlements, unit.now);
  await recordReceivables(unit.tx, receivables, unit.now);
  return number;
}

/** The plan rows a lot was distributed under: kept at distribution (0402); the plan itself only for older cash. */
async function termsOf(unit: Unit, designId: string, lot: Lot): Promise<PlanRecipient[] | null> {
  const kept = lot.distTid ? await store.selectDistributionTerms(unit.tx, lot.distTid, designId) : null;
  if (kept) return kept.recipients;
  return lot.planId ? (await store.selectPlanAnyState(unit.tx, lot.planId))?.recipients ?? null : null;
}

/**
 * Settles one lot per its plan's terms: what its reserve covers is paid at once, the rest is owed
 * as pending settlement rows. Returns the redeemer's own funded and pending parts.
 */
async function settleLotIn(
  unit: Unit, input: RedeemInput, at: { designId: string; currency: string; lot: Lot; number: number }, settlements: NewSettlement[],
): Promise<{ number: number; funded: bigint; pending: bigint }> {
  const { designId, currency, lot } = at;
  let { number } = at;
  let funded = 0n;
  let pending = 0n;
  for (const part of fundFromReserve(owedUnder(await termsOf(unit, designId, lot), designId, input.redeemerId, lot.money), lot.reserve)) {
    const recipientId = part.owed.recipientId || input.redeemerId;
    const base = { redemptionTransferId: input.transferId, designId, planId: lot.planId, redeemerId: input.redeemerId, recipientId, role: part.owed.role, currency, distTid: lot.distTid };
    if (part.funded.minor > 0n) {
      await releaseReserve(unit, designId, part.funded, recipientId, { transferId: input.transferId, number, action: 'settle' });
      number += 1;
      settlements.push({ ...base, id: await unit.newLongId('settlement'), amount: part.funded.minor, state: 'funded' });
    }
    if (part.pending.minor > 0n) {
      const id = await unit.newLongId('settlement');
      unit.create(settlementKind, id, { designId, recipientId, amount: String(part.pending.minor), at: unit.now.toISOString() });
      settlements.push({ ...base, id, amount: part.pending.minor, state: 'pending' });
    }
    if (part.owed.role === 'redeemer') {
      funded += part.funded.minor;
      pending += part.pending.minor;
    }
  }
  return { number, funded, pending };
}
