// The types of circulation.ts (re-exported there), in a leaf module: the files circulation.ts imports use them
// without importing circulation.ts back (no import cycle).
import type { Failure } from '../ledger/errors.ts';
import type { Decimal } from '../money.ts';
import type { DesignFailure } from './errors.ts';
import type { PosDevice } from './redemption.ts';

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
