// Brand cash in circulation: design sends (design-send.ts) issue new notes of a gl_design through
// distributeIn (distribution.ts, re-exported here with the split); expiry: the sweeper moves due
// notes back to the issuer (movement `expire`), out of circulation, and releases their reserve to
// the issuer. Here the context is built and the sends and the design's timers wired.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { walletHolder } from '../ledger/cash.ts';
import type { Pick } from '../ledger/allocation.ts';
import type { Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { designExpiryBatchMax, escrowedExpiryRetryMs } from '../limits.ts';
import type { MessagesService } from '../messages/service.ts';
import type { Decimal } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import type { TransfersService } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import { circulationContext, type CirculationContext } from './context.ts';
import { send } from './design-send.ts';
import type { DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import type { PosDevice } from './redemption.ts';
import { remindHoldersIn } from './reminders.ts';
import { releaseReserve } from './reserve.ts';
import * as store from './store.ts';

export { distributeIn, distributionSplit, noteExpiry, payIn, type DistributionSplit } from './distribution.ts';

export interface DesignSendInput {
  callerId: string;
  designId: string;
  recipientUid: string;
  planId: string;
  amount: Decimal;
  senderUid?: string;
  message?: string;
  private: boolean;
  requireRecipientEmail: boolean;
  appdata: Record<string, string>;
  dedupId?: string;
  /** A closed-loop token: the sender's open loop payment under the plan is refused. */
  closedLoopOnly?: boolean;
  /** The calling token's device: the POS device of the report rows the distribution writes. */
  posDevice?: PosDevice | null;
}

export type DesignSendResult = { ok: true; transferId: string; duplicate: boolean } | Failure | DesignFailure;

export interface Circulation {
  send(input: DesignSendInput): Promise<DesignSendResult>;
  /** The designs whose cash the profile accepts as payment: its own designs' cash is accepted anyway. */
  redeemedDesignIds(profileId: string): Promise<Set<string>>;
}

async function redeemedDesignIds(ctx: CirculationContext, profileId: string): Promise<Set<string>> {
  return new Set(await store.selectRedeemedDesignIds(ctx.sql, profileId));
}

/** The design's timers: holders' reminders, and notes due to expire. */
async function designTimerIn(ctx: CirculationContext, unit: Unit, timer: { actorId: string; name: string }): Promise<void> {
  if (timer.name === 'remind') await remindHoldersIn(unit, timer.actorId, { profiles: ctx.profiles, messages: ctx.messages });
  else await expireDueIn(unit, timer.actorId);
}

export function createCirculation(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): Circulation {
  const ctx = circulationContext(core, dependencies);
  const circulation: Circulation = {
    send: (input) => send(ctx, input),
    redeemedDesignIds: (profileId) => redeemedDesignIds(ctx, profileId),
  };
  core.sweeper.register(designKind.kind, (unit, timer) => designTimerIn(ctx, unit, timer));
  return circulation;
}

/**
 * Expires the design's due notes held in wallets: per holder one `expire` transfer moves them back
 * to the issuer and out of circulation, and their reserve goes to the issuer. Reschedules itself
 * for the next expiry; notes due while in escrow are tried again later.
 */
export async function expireDueIn(unit: Unit, designId: string): Promise<number> {
  const design = await store.selectDesign(unit.tx, designId);
  if (!design) return 0;
  const due = await store.selectDueNotesForUpdate(unit.tx, designId, unit.now, designExpiryBatchMax);
  const byHolder = new Map<string, store.DueNoteRow[]>();
  for (const note of due) byHolder.set(note.holder_id, [...(byHolder.get(note.holder_id) ?? []), note]);
  for (const [holderId, notes] of byHolder) {
    const at = unit.now;
    const amount = notes.reduce((total, note) => total + note.amount, 0n);
    const reserve = notes.reduce((total, note) => total + note.reserve, 0n);
    const transferId = await unit.newLongId('transfer');
    const snapshot = unit.create(transfer, transferId, { workflowType: 'expire', waitFor: 'none', at: at.toISOString() });
    await transferStore.insertTransfer(unit.tx, {
      id: transferId, workflowType: 'expire', senderId: holderId, senderUid: `service:${holderId}`, recipientId: design.issuer_id, recipientUid: `service:${design.issuer_id}`,
      senderPersonalId: null, recipientPersonalId: null, currency: design.currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: at,
      activityCount: snapshot.context.activityCount, private: true, message: null, messageSubject: null, appdata: {}, details: { design_id: designId },
    }, holderId === design.issuer_id ? [{ profileId: holderId, role: 'sender' }] : [{ profileId: holderId, role: 'sender' }, { profileId: design.issuer_id, role: 'recipient' }]);
    const picks: Pick[] = notes.map((note) => ({ serial: note.serial, loopId: designId, currency: note.currency, issuerId: note.issuer_id, amount: note.amount, whole: true }));
    const line = { loopId: designId, currency: design.currency, issuerId: design.issuer_id, amount };
    await ledgerStore.moveNotes(unit.tx, walletHolder(holderId), { kind: 'expired', id: designId }, picks, at, {
      transferId, lines: [{ number: 1, action: 'expire', fromId: holderId, toId: design.issuer_id, ...line }],
    });
    await ledgerStore.addExpired(unit.tx, designId, design.currency, amount);
    if (reserve > 0n) await releaseReserve(unit, designId, design.currency, reserve, design.issuer_id, { transferId, number: 2, action: 'release' });
  }
  const next = await store.selectNextExpiry(unit.tx, designId);
  if (next) {
    const dueAt = next > unit.now ? next : new Date(unit.now.getTime() + escrowedExpiryRetryMs);
    unit.schedule(designKind, designId, `expire:${dueAt.toISOString()}`, dueAt, { type: 'design.expire_due', at: dueAt.toISOString() });
  }
  return due.length;
}

