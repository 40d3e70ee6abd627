// The send's writes: performs a SendPlan inside the send's command, in the statement order and
// round trips the hot path is measured with, and answers with the TransferDetail a read would give.
import { displayInvitationCode } from '../invitations/codes.ts';
import { movementRows } from '../ledger/cash.ts';
import type { ReadyCode } from '../passwords.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { redeemArrivedIn } from '../designs/redemption.ts';
import type { TransfersContext } from './context.ts';
import { passGate, type Authority, type Movement, type Off } from './gate.ts';
import { transfer } from './machine.ts';
import { newPaycode } from './paycode.ts';
import { rowWithState, type SendPlan } from './plan.ts';
import type { SendResult, SendUnit } from './send-types.ts';
import * as store from './store.ts';
import { insertedRow, partyFromProfile, steps, transferDetailJson, type PartyInfo } from './views.ts';

/** `invitationCode`: made before the command when the send may invite (the plan decides whether it does). */
export async function writeSend(
  ctx: TransfersContext, unit: SendUnit, plan: SendPlan, recipient: ProfileRecord | null,
  { withDetail, invitationCode, ...gate }: { withDetail: boolean; invitationCode: ReadyCode | null; authority: Authority; holding: Exclude<Movement['holding'], Off> },
): Promise<SendResult> {
  const { id: transferId, senderId, at } = plan.row;
  const started = unit.create(transfer, transferId, plan.actor);
  if (plan.timer) unit.schedule(transfer, transferId, plan.timer.name, plan.timer.dueAt, plan.timer.event);
  let details = plan.row.details;
  if (plan.invitation) {
    if (!invitationCode) throw new Error('a send that invites needs the code made before its command');
    // The invitation is created in this same transaction: no transfer without its message.
    const sender = await ctx.profiles.get(unit.tx, senderId);
    const codeShown = details?.invitation_type === 'code_shared';
    const invited = await ctx.invitations!.inviteIn(unit, { ...plan.invitation, senderName: sender?.title ?? '', codeShown }, invitationCode);
    details = { ...details, invite_id: invited.inviteId, invite_client_id: plan.invitation.clientId };
    // A shared code is meant for every participant to see (supplement 2.10); other codes stay secret.
    if (details.invitation_type === 'code_shared') details.invitation_code = displayInvitationCode(invitationCode.code);
  }
  const row = rowWithState(plan, started, details);
  // The gate: the send's own rungs ran in loadIn and planSend, in the statements the hot path is
  // measured with; the rest here. The writes and the sender's ProfileDetail go out in one round
  // trip; the detail's reads are queued after the writes, so its holdings are those after the send.
  const read: { profileDetail: Record<string, unknown> | null } = { profileDetail: null };
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId,
    authority: { ...gate.authority, fieldName: 'amounts' },
    wallets: { read: async () => plan.walletStates },
    cash: plan.picks,
    holding: gate.holding,
    transfer: { row, views: plan.views },
    // Into escrow: the movement is recorded when the recipient takes the cash.
    move: { from: plan.move.from, to: plan.move.to, lines: plan.move.recorded ? () => [...plan.move.recorded!.lines] : { off: 'escrow_in' } },
    alongside: withDetail ? async () => { read.profileDetail = await ctx.profiles.detail(unit.tx, senderId); } : undefined,
  });
  if (!passed.ok) return unit.reject(passed);
  // Brand cash that reaches a redeemer by agreement is redeemed and settled in this command.
  if (plan.redeem) await redeemArrivedIn(unit, { transferId, ...plan.redeem, number: 2 });
  let paycode: store.PaycodeRow | null = null;
  if (plan.paycode) {
    const code = await newPaycode(ctx, unit, plan.paycode);
    // The sender sees the code here; later reads open it from its sealed form (sender only).
    const { recipientId, money, expiresAt } = plan.paycode;
    paycode = {
      code, code_digest: null, code_sealed: null, transfer_id: transferId, sender_id: senderId, recipient_id: recipientId, currency: money.currency, amount: money.minor, received: 0n,
      created_at: at, modified_at: at, expires_at: expiresAt, used_at: null, state: 'active',
    };
  }
  const profileDetail = read.profileDetail;
  if (!profileDetail) return { ok: true as const, transferId, duplicate: false };
  const detail = sentTransferDetail(ctx, row, plan, recipient, paycode, profileDetail);
  return { ok: true as const, transferId, duplicate: false, detail: { transfer: detail, profile: profileDetail } };
}

/** The TransferDetail is built from what this command wrote, as a read would return it. */
function sentTransferDetail(
  ctx: TransfersContext, row: store.NewTransfer, plan: SendPlan, recipient: ProfileRecord | null, paycode: store.PaycodeRow | null, profileDetail: Record<string, unknown>,
): Record<string, unknown> {
  const parties = new Map<string, PartyInfo>();
  parties.set(row.senderId, partyFromProfile(row.senderId, profileDetail.title as string, profileDetail.username as string | null, profileDetail.is_individual as boolean));
  if (row.recipientId !== null) parties.set(recipient!.id, partyFromProfile(recipient!.id, recipient!.title, recipient!.username, recipient!.isIndividual));
  const inserted = insertedRow(row);
  const stakeholders = plan.views.map((view) => ({ profile_id: view.profileId, role: view.role }))
    .sort((left, right) => (left.profile_id < right.profile_id ? -1 : left.profile_id > right.profile_id ? 1 : left.role < right.role ? -1 : left.role > right.role ? 1 : 0));
  return transferDetailJson(inserted, movementRows(row.id, plan.lines, row.at), parties, {
    viewerId: row.senderId, paycode, publicUrl: ctx.core.config.publicUrl, stakeholders, steps: steps(inserted),
  });
}
