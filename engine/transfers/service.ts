// Sending and receiving cash: the transfers service's interface and its factory. The operations
// live by idea beside it (send.ts and plan.ts, paycode-receive.ts, retract.ts, answer.ts, timers.ts);
// every change goes through the one command path; cash moves through engine/ledger/cash.ts.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { Failure } from '../ledger/errors.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { InvitationsService } from '../invitations/service.ts';
import { accept, acceptCode, refuse } from './answer.ts';
import { applyIn, restoreBornFinalFromRows } from './changes.ts';
import { createTransfersContext, type TransferAcceptHandler, type TransferResult, type TransferTimerHandler } from './context.ts';
import type { TransferEvent } from './machine.ts';
import { changePaycodeExpiration } from './paycode.ts';
import { receive, type ReceiveInput, type ReceiveResult } from './paycode-receive.ts';
import { resolveRecipient, type ResolvedRecipient } from './recipient.ts';
import { resend, retract, skip } from './retract.ts';
import { send, type SendInput, type SendResult } from './send.ts';
import type * as store from './store.ts';
import { registerTransferTimers } from './timers.ts';

// Other modules import these from here.
export { accepts, redeemedLoopsOf } from './acceptance.ts';
export { appdataChars, closedLoopRefusal } from './input-checks.ts';

export interface TransfersService {
  resolveRecipient(senderId: string, recipientUid: string, senderUid: string | undefined): Promise<{ ok: true; recipient: ResolvedRecipient; senderUid: string } | Failure>;
  send(input: SendInput): Promise<SendResult>;
  receive(input: ReceiveInput): Promise<ReceiveResult>;
  retract(input: { callerId: string; permissions: ReadonlySet<string>; transferId: string; reason: string; closedLoopOnly?: boolean }): Promise<TransferResult>;
  skip(input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult>;
  changePaycodeExpiration(input: { callerId: string; transferId: string; paycode: string; expireSeconds: number }): Promise<TransferResult>;
  accept(input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult>;
  /** Accepts the waiting invitation transfer whose invitation code the caller entered (POST /wallet/accept-code). */
  acceptCode(input: { callerId: string; code: string }): Promise<TransferResult>;
  refuse(input: { callerId: string; transferId: string }): Promise<TransferResult>;
  resend(input: { callerId: string; transferId: string }): Promise<TransferResult>;
  /** Applies an event to a loaded transfer and writes its new state; the building block of every change. */
  applyIn(unit: Unit, transferId: string, event: TransferEvent, change?: Partial<store.TransferChange>): Promise<boolean>;
  /** Lets another domain deliver a transfer timer of its own (bills: bill_expire, bill_remind). */
  onTimer(name: string, handler: TransferTimerHandler): void;
  /** Lets another domain answer POST /t/<id>/accept for a workflow of its own (bills: payment). */
  onAccept(workflowType: string, handler: TransferAcceptHandler): void;
}

export function createTransfersService(core: Core, profiles: ProfilesService, invitations?: InvitationsService): TransfersService {
  const ctx = createTransfersContext(core, profiles, invitations);
  registerTransferTimers(ctx);
  restoreBornFinalFromRows(core.commands);
  return {
    resolveRecipient: (senderId, recipientUid, senderUid) => resolveRecipient(ctx, senderId, recipientUid, senderUid),
    send: (input) => send(ctx, input),
    receive: (input) => receive(ctx, input),
    retract: (input) => retract(ctx, input),
    skip: (input) => skip(ctx, input),
    changePaycodeExpiration: (input) => changePaycodeExpiration(ctx, input),
    accept: (input) => accept(ctx, input),
    acceptCode: (input) => acceptCode(ctx, input),
    refuse: (input) => refuse(ctx, input),
    resend: (input) => resend(ctx, input),
    applyIn,
    onTimer: (name, handler) => void ctx.timerHandlers.set(name, handler),
    onAccept: (workflowType, handler) => void ctx.acceptHandlers.set(workflowType, handler),
  };
}
