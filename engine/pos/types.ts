// The point-of-sale rows a movement of another domain leaves: a settlement pending at a settler,
// a receivable on a merchant's report. The SQL is store.ts, the pos domain's alone.

/** A settlement owed after a redemption (funded from the reserve, or pending at a settler). */
export interface NewSettlement {
  id: string;
  redemptionTransferId: string;
  designId: string;
  planId: string | null;
  redeemerId: string;
  recipientId: string;
  role: 'redeemer' | 'static';
  currency: string;
  amount: bigint;
  state: 'funded' | 'pending';
  /** The transfer that distributed the redeemed notes (null for notes older than migration 0970). */
  distTid: string | null;
}

/** A row of a business's receivable report. */
export interface NewReceivable {
  profileId: string;
  transferId: string;
  posDeviceHolderId: string | null;
  posDeviceId: string | null;
  distTid: string | null;
  settlementType: 'init_dist' | 'redeem' | 'immediate' | 'paycard' | 'non_service';
  receivedCurrency: string;
  settleCurrency: string;
  loopId: string;
  isFundable: boolean;
  tenderType: string;
  receivedAmount: bigint;
  settleFunded: bigint;
  settleReclaimed: bigint;
  settlePending: bigint;
  settleSettled: bigint;
}
