// The types of bills.ts (re-exported there), in a leaf module: the files bills.ts imports use them
// without importing bills.ts back (no import cycle).
import type { Decimal } from '../money.ts';
import type { Failure } from '../ledger/errors.ts';
import type { DesignFailure } from './errors.ts';

export interface BillInput {
  callerId: string;
  designId: string;
  amount: Decimal;
  planId: string;
  senderUid?: string;
  profileCreationData?: { first_name: string; last_name: string; email?: string };
  message?: string;
  private: boolean;
  appdata: Record<string, string>;
  dedupId?: string;
  /** A closed-loop token bills: its plan may not make the merchant pay open loop cash when the bill is paid. */
  closedLoopOnly?: boolean;
}

export type BillResult = { ok: true; transferId: string; duplicate: boolean } | Failure | DesignFailure;
