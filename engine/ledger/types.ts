// The ledger's shapes other domains use: who holds notes, a movement's lines and rows, a wallet's
// cash by loop. The SQL that reads and writes them is store.ts, the ledger's alone.

import type { Money } from '../money.ts';

type HolderKind = 'wallet' | 'transfer' | 'redeemed' | 'reserve' | 'expired';
export interface Holder {
  kind: HolderKind;
  id: string;
}

/** One line of a movement as a path builds it: cash of one loop, currency and issuer, from a holder to another. */
export interface MovementLine {
  number: number;
  action: string;
  fromId: string | null;
  toId: string;
  loopId: string;
  issuerId: string;
  money: Money;
}

/** A movement line as stored and read back. */
export interface MovementRow {
  transfer_id: string;
  number: number;
  line: number;
  at: Date;
  action: string;
  from_id: string | null;
  to_id: string;
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
}

/** A wallet's cash of one loop, currency and issuer. */
export interface LoopSummaryRow {
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
}
