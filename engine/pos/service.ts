// Point of sale: merchants pull brand cash at a terminal with the customer's consent, payment
// processors send it for the senders who granted them a processor token, redemptions settle per
// plan (engine/designs/redemption.ts), settlers pay what is pending (settlement.ts), and the
// received-and-receivable report reads the rows every payment and settlement keeps.
import type { Core } from '../core.ts';
import { consents, grantConsent, revokeConsent } from './consent.ts';
import type { PosContext, PosDependencies } from './context.ts';
import type { PosFailure } from './errors.ts';
import type { PaymentResult } from './fields.ts';
import type { LoopsResult } from './loops.ts';
import { procSend, sendable, type ProcessorCaller, type ProcInput } from './processor.ts';
import { pull, redeemable, type PullInput } from './pull.ts';

export type { PaymentInput, PaymentResult } from './fields.ts';
export type { LoopsResult } from './loops.ts';
export type { ProcessorCaller, ProcInput } from './processor.ts';
export { pullFeature, type PullInput } from './pull.ts';

export interface PosService {
  grantConsent(customerId: string, merchantUid: string): Promise<{ ok: true; merchantId: string } | PosFailure>;
  revokeConsent(customerId: string, merchantUid: string): Promise<{ ok: true; revoked: boolean } | PosFailure>;
  consents(customerId: string): Promise<{ merchant_id: string; granted: string }[]>;
  redeemable(input: { merchantId: string; senderUid: string; serialNumbers?: string }): Promise<LoopsResult>;
  pull(input: PullInput): Promise<PaymentResult>;
  sendable(input: { caller: ProcessorCaller; senderId: string; recipientId: string; serialNumbers?: string }): Promise<LoopsResult>;
  procSend(input: ProcInput): Promise<PaymentResult>;
}

export function createPosService(core: Core, dependencies: PosDependencies): PosService {
  const ctx: PosContext = { core, ...dependencies };
  return {
    grantConsent: (customerId, merchantUid) => grantConsent(ctx, customerId, merchantUid),
    revokeConsent: (customerId, merchantUid) => revokeConsent(ctx, customerId, merchantUid),
    consents: (customerId) => consents(ctx, customerId),
    redeemable: (input) => redeemable(ctx, input),
    pull: (input) => pull(ctx, input),
    sendable: (input) => sendable(ctx, input),
    procSend: (input) => procSend(ctx, input),
  };
}
