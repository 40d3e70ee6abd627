// Pulls at the merchant's terminal: a business with the pull_payment feature takes brand cash from a
// customer who consented, after showing what of the customer's cash it redeems.
import { posDeviceOf } from '../designs/redemption.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { profileByUid } from './consent.ts';
import type { PosContext } from './context.ts';
import { invalid, posFailure, type PosFailure } from './errors.ts';
import type { PaymentInput, PaymentResult } from './fields.ts';
import { loopsFor, type LoopsResult } from './loops.ts';
import { pay } from './pay.ts';
import * as store from './store.ts';

export const pullFeature = 'pull_payment';

export interface PullInput extends PaymentInput {
  merchantId: string;
  merchantPersonalId: string | null;
  deviceId: string | null;
  senderUid: string;
}

async function pullChecks(ctx: PosContext, merchantId: string, senderUid: string): Promise<{ merchant: ProfileRecord; customer: ProfileRecord } | PosFailure> {
  const { profiles } = ctx;
  const merchant = await profiles.get(ctx.core.sql, merchantId);
  if (!merchant || merchant.isIndividual || !(await profiles.hasFeature(ctx.core.sql, merchantId, pullFeature))) {
    return posFailure('pull_not_enabled', { description: 'Only a business with the pull_payment feature pulls payments.' });
  }
  const customer = await profileByUid(ctx, senderUid);
  if (!customer) return posFailure('sender_not_found', { invalid: { sender_uid: 'no profile has this UID' } });
  if (customer.id === merchantId) return invalid('sender_uid', 'the merchant cannot pull from itself');
  // The rule that stops a merchant draining wallets: only customers who let this merchant pull.
  if (!(await store.hasConsent(ctx.core.sql, customer.id, merchantId))) {
    return posFailure('pull_not_consented', { description: 'The customer has not let this merchant pull payments (POST /wallet/pull-consent).' });
  }
  return { merchant, customer };
}

export async function redeemable(ctx: PosContext, input: { merchantId: string; senderUid: string; serialNumbers?: string }): Promise<LoopsResult> {
  const checked = await pullChecks(ctx, input.merchantId, input.senderUid);
  if ('error' in checked) return checked;
  return loopsFor(ctx, checked.customer, checked.merchant, input.serialNumbers, true);
}

export async function pull(ctx: PosContext, input: PullInput): Promise<PaymentResult> {
  const checked = await pullChecks(ctx, input.merchantId, input.senderUid);
  if ('error' in checked) return checked;
  const posDevice = posDeviceOf({ profileId: input.merchantId, personalProfileId: input.merchantPersonalId, deviceId: input.deviceId });
  return pay(ctx, 'pull', {
    sender: checked.customer, recipient: checked.merchant, dedupOwner: input.merchantId, personalId: input.merchantPersonalId, posDevice, viewerId: input.merchantId,
  }, input);
}
