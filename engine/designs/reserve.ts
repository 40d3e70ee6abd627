// A design's reserve: open loop notes held by the design (holder_kind 'reserve'), released to
// wallets when brand cash is redeemed or expires.
import type { Unit } from '../actors/command.ts';
import { openLoopId, type Pick } from '../ledger/allocation.ts';
import { movementLines, walletHolder } from '../ledger/cash.ts';
import { reserveNotesForUpdate } from '../ledger/reads.ts';
import { reserveNotesMax } from '../limits.ts';
import { money, type Money } from '../money.ts';
import { passGate } from '../transfers/gate.ts';

export const ppmWhole = 1_000_000n;

/** A percentage string (up to 4 decimals, at most 100) in millionths of the whole. */
export function percentagePpm(percentage: string): bigint {
  const [whole, fraction = ''] = percentage.split('.');
  return BigInt(whole) * 10_000n + BigInt((fraction + '0000').slice(0, 4));
}

/** Moves open loop cash out of a design's reserve to a wallet, recorded as one movement. */
export async function releaseReserve(unit: Unit, designId: string, amount: Money, toId: string, movement: { transferId: string; number: number; action: string }): Promise<void> {
  const { currency } = amount;
  const notes = await reserveNotesForUpdate(unit.tx, designId, currency, reserveNotesMax);
  const picks: Pick[] = [];
  let remaining = amount.minor;
  for (const note of notes) {
    if (remaining === 0n) break;
    const part = note.amount < remaining ? note.amount : remaining;
    picks.push({ serial: note.serial, loopId: openLoopId, issuerId: note.issuerId, money: money(currency, part), whole: part === note.amount });
    remaining -= part;
  }
  if (remaining > 0n) throw new Error(`design ${designId} reserve is short by ${remaining}`);
  const passed = await passGate(unit, {
    kind: 'debt',
    transferId: movement.transferId,
    balances: { profileIds: [toId], currencies: [currency] },
    // The design's reserve pays what its rules owe.
    authority: { off: 'no_caller' },
    cash: picks,
    holding: { off: 'open_loop' },
    transfer: { off: 'recorded_by_path' },
    move: { from: { kind: 'reserve', id: designId }, to: walletHolder(toId), lines: (moved) => movementLines(moved, movement.number, movement.action, null, toId) },
  });
  if (!passed.ok) throw new Error(`a reserve's release is refused by no rung: ${passed.error}`);
}
