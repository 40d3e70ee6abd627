// The types of send.ts (re-exported there), in a leaf module: the files send.ts imports use them
// without importing send.ts back (no import cycle).
import type { Unit } from '../actors/command.ts';
import type { ParsedAmounts } from '../ledger/allocation.ts';
import type { Duplicate, Failure } from '../ledger/errors.ts';
import type { InvitationInvalid } from '../invitations/errors.ts';

export interface SendInput {
  senderId: string;
  acceptedPolicy?: boolean;
  /** The app sending; invitations go out in its name. */
  clientId?: string;
  senderPersonalId: string | null;
  recipientUid: string;
  senderUid?: string;
  /** Read at the edge (parseAmounts); a send that does not read is refused here, first. */
  amounts: ParsedAmounts;
  serialNumbers?: string;
  private: boolean;
  nonPayment: boolean;
  message?: string;
  messageSubject?: string;
  requireRecipientEmail: boolean;
  invitationType?: string;
  invitationCodeLength?: number;
  invitationExpireDays?: number;
  appdata: Record<string, string>;
  dedupId?: string;
  /** The caller's token carries closed loop cash rights only (POST /p/token, closed-loop sign-in): brand cash only. */
  closedLoopOnly?: boolean;
  /** Also answer with the TransferDetail and the sender's ProfileDetail, read in the send's own transaction. */
  withDetail?: boolean;
}

/** A send's answer as of its commit: the TransferDetail (for the sender) and the sender's ProfileDetail. */
interface SendDetail {
  transfer: Record<string, unknown>;
  profile: Record<string, unknown>;
}

/** `detail` is there for a new transfer when the input asked for it (a duplicate is read afterwards). */
export type SendResult = { ok: true; transferId: string; duplicate: boolean; detail?: SendDetail } | Failure;

/** A send's command may reject with a refusal, a repeated dedup key, or an address the invitations domain refused. */
export type SendUnit = Unit<Failure | Duplicate | InvitationInvalid>;
