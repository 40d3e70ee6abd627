// The send's decision, pure (no I/O): from what the send loaded, the refusal to answer, or every
// row, movement, view, detail, timer and invitation it writes. send-writes.ts performs the plan.
import type { Parsed, Pick } from '../ledger/allocation.ts';
import { sumPicks } from '../ledger/allocation.ts';
import { escrowHolder, movementLines, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import type { Holder, MovementLine } from '../ledger/types.ts';
import type { InviteInput } from '../invitations/service.ts';
import { dayMs, defaultCountries, invitationExpireDaysDefault, paycodeExpiryMsDefault } from '../limits.ts';
import { accepts } from './acceptance.ts';
import { rowState, type TransferEvent, type TransferInput, type WaitFor } from './machine.ts';
import { transferFields } from './new-transfer.ts';
import { walletStatesRefusal, type WalletStates } from './gate.ts';
import type { ResolvedRecipient } from './recipient.ts';
import type { SendInput } from './send-types.ts';
import type { NewTransfer } from './store.ts';
import type { Money } from '../money.ts';

/** What the send read before deciding: its input, the parties, the picked cash and the clock's now. */
export interface SendLoaded {
  input: SendInput;
  recipient: ResolvedRecipient;
  senderUid: string;
  waitFor: WaitFor;
  /** The designs the recipient redeems by agreement. */
  redeemed: ReadonlySet<string>;
  currency: string;
  transferId: string;
  now: Date;
  /** The sender wallet's state; null when it has none. */
  senderWalletState: string | null;
  recipientWalletState: string | null;
  picked: Parsed<Pick[]>;
  publicUrl: string;
  /** Whether an invitations domain runs to send an invitation's message. */
  canInvite: boolean;
}

export interface SendPlan {
  picks: Pick[];
  /** The created transfer actor's input; the machine decides its first state. */
  actor: TransferInput;
  /** The transfer row but for the fields the created actor gives (rowWithState). */
  row: Omit<NewTransfer, 'state' | 'endAt' | 'activityCount'>;
  views: { profileId: string; role: string }[];
  /** The movement a direct send records (none for a transfer that waits). */
  lines: MovementLine[];
  /** Where the picked notes go: the recipient's wallet (recording the lines) or the transfer's escrow. */
  move: { from: Holder; to: Holder; recorded?: { transferId: string; lines: readonly MovementLine[] } };
  /** The transfer's expiry: of the invitation or of the payment code. */
  timer: { name: 'invite_expire' | 'paycode_expire'; dueAt: Date; event: TransferEvent } | null;
  /** The invitation's message, created in the send's transaction (the sender's name is read then). */
  invitation: Omit<InviteInput, 'senderName'> | null;
  /** The payment code the recipient business will receive. */
  paycode: { transferId: string; senderId: string; recipientId: string; money: Money; expiresAt: Date } | null;
  /** Brand cash that reaches a redeemer by agreement, redeemed and settled in the send. */
  redeem: { redeemerId: string; designIds: string[] } | null;
  /** The wallet states loadIn read under the locks, for the gate's wallet rung. */
  walletStates: WalletStates;
}

export function planSend(loaded: SendLoaded): { ok: true; plan: SendPlan } | Failure {
  const { input, waitFor, redeemed, transferId, now: at } = loaded;
  const recipient = loaded.recipient.profile;
  const walletsRefused = walletStatesRefusal(loaded.senderWalletState, loaded.recipientWalletState);
  if (walletsRefused) return walletsRefused;
  if (!loaded.picked.ok) return sendFailure(loaded.picked.errors);
  const picks = loaded.picked.value;
  const amount = sumPicks(picks, loaded.currency);
  const nonPayment = picks.some((pick) => !accepts(pick, recipient, redeemed));
  const workflowType = nonPayment ? 'non_payment' : 'profile_to_profile';
  const paycodeExpiresAt = waitFor === 'paycode' ? new Date(at.getTime() + paycodeExpiryMsDefault) : null;
  const views = [{ profileId: input.senderId, role: 'sender' }];
  if (recipient && waitFor !== 'invite') views.push({ profileId: recipient.id, role: 'recipient' });
  const details: Record<string, unknown> = {};
  if (input.acceptedPolicy) details.accepted_policy = true;
  if (input.nonPayment) details.non_payment = true;
  const invite = waitFor === 'invite' ? invitePlan(loaded, details) : null;
  const direct = waitFor === 'none';
  const lines = direct ? movementLines(picks, 1, 'move', input.senderId, recipient!.id) : [];
  const plan: SendPlan = {
    picks,
    actor: { workflowType, waitFor, at: at.toISOString(), paycodeExpiresAt: paycodeExpiresAt?.toISOString() ?? null },
    row: {
      id: transferId, at, money: amount,
      ...transferFields({
        workflowType, senderId: input.senderId, senderUid: loaded.senderUid, recipientId: waitFor === 'invite' ? null : (recipient?.id ?? null), recipientUid: loaded.recipient.uid,
        senderPersonalId: input.senderPersonalId, recipientPersonalId: recipient && recipient.isIndividual && direct ? recipient.id : null,
        private: input.private, message: input.message, messageSubject: input.messageSubject, appdata: input.appdata, details,
      }),
    },
    views,
    lines,
    move: direct
      ? { from: walletHolder(input.senderId), to: walletHolder(recipient!.id), recorded: { transferId, lines } }
      : { from: walletHolder(input.senderId), to: escrowHolder(transferId) },
    timer: invite?.timer ?? (paycodeExpiresAt ? { name: 'paycode_expire', dueAt: paycodeExpiresAt, event: { type: 'transfer.paycode_expire', at: paycodeExpiresAt.toISOString() } } : null),
    invitation: invite?.invitation ?? null,
    paycode: paycodeExpiresAt ? { transferId, senderId: input.senderId, recipientId: recipient!.id, money: amount, expiresAt: paycodeExpiresAt } : null,
    redeem: direct && !nonPayment && picks.some((pick) => redeemed.has(pick.loopId) && pick.issuerId !== recipient!.id)
      ? { redeemerId: recipient!.id, designIds: [...redeemed] } : null,
    walletStates: { sender: loaded.senderWalletState, recipient: loaded.recipientWalletState },
  };
  return { ok: true, plan };
}

/** An invitation send: its details, its expiry and, for an email or phone address, its message. */
function invitePlan(loaded: SendLoaded, details: Record<string, unknown>): { timer: SendPlan['timer']; invitation: SendPlan['invitation'] } {
  const { input, now: at, transferId } = loaded;
  const expireDays = input.invitationExpireDays ?? invitationExpireDaysDefault;
  const expiresAt = new Date(at.getTime() + expireDays * dayMs);
  details.sent_count = 1;
  details.alarms = [{ name: 'alarm.expire_invitation', timestamp: expiresAt.toISOString() }];
  details.invitation_type = input.invitationType ?? 'link';
  const timer = { name: 'invite_expire' as const, dueAt: expiresAt, event: { type: 'transfer.invite_expire' as const, at: expiresAt.toISOString() } };
  const recipientUid = loaded.recipient.uid;
  const address = recipientUid.startsWith('email:') ? { email: recipientUid.slice(6) } : recipientUid.startsWith('phone:') ? { phone: recipientUid.slice(6) } : null;
  if (!loaded.canInvite || !input.clientId || !address) return { timer, invitation: null };
  return {
    timer,
    invitation: {
      clientId: input.clientId, ...address, countries: defaultCountries, firstName: '', lastName: '', extId: transferId,
      urlTemplate: `${loaded.publicUrl}/t/EXT_ID?invite=INVITE_ID&code=CODE`,
      senderUrl: null, senderImageUrl: null, orgName: null, orgUrl: null, orgImageUrl: null,
    },
  };
}

/** The row the plan writes, with the state, end and activity count of the actor the send created. */
export function rowWithState(
  plan: SendPlan, started: { value: unknown; context: { endAt: string | null; activityCount: number } }, details: Record<string, unknown>,
): NewTransfer {
  return { ...plan.row, ...rowState(started), details };
}
