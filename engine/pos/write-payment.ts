// What a payment writes: the transfer the gate records for it (ended at once), and after the gate's
// move, what the recipient redeems redeemed at once and the report's receivable rows.
import type { Unit } from '../actors/command.ts';
import { redeemArrivedIn, type PosDevice } from '../designs/redemption.ts';
import { openLoopId, type Pick } from '../ledger/allocation.ts';
import { formatMinor } from '../money.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import type { TransferRecord } from '../transfers/gate.ts';
import type { PaymentInput, Parsed } from './fields.ts';
import * as store from './store.ts';

export interface PaymentWrite {
  kind: 'pull' | 'processor';
  transferId: string;
  sender: ProfileRecord;
  recipient: ProfileRecord;
  picks: Pick[];
  currency: string;
  parsed: Parsed;
  input: PaymentInput;
  parties: { personalId: string | null; posDevice: PosDevice | null };
  redeemed: ReadonlySet<string>;
}

interface Device {
  posDeviceHolderId: string | null;
  posDeviceId: string | null;
}

export async function writePayment(unit: Unit, payment: PaymentWrite): Promise<void> {
  const { transferId, recipient, parsed } = payment;
  const receivables: store.NewReceivable[] = [];
  const device: Device = { posDeviceHolderId: payment.parties.posDevice?.holderId ?? null, posDeviceId: payment.parties.posDevice?.deviceId ?? null };
  if (payment.picks.length > 0) receivables.push(...(await moveCash(unit, payment, device)));
  if (parsed.nonService && !recipient.isIndividual) {
    receivables.push({
      profileId: recipient.id, transferId, ...device, distTid: null, settlementType: 'non_service', receivedCurrency: parsed.nonService.currency,
      settleCurrency: parsed.nonService.currency, loopId: openLoopId, isFundable: false, tenderType: 'non_service', receivedAmount: parsed.nonService.minor,
      settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: 0n,
    });
  }
  await store.insertReceivables(unit.tx, receivables, unit.now);
}

/** The payment's transfer as the gate records it: ended at once, its amount the cash picked. */
export function paymentTransfer(payment: Omit<PaymentWrite, 'transferId' | 'picks'>): TransferRecord {
  const { sender, recipient, currency, parsed, input } = payment;
  const workflowType = payment.kind === 'pull' ? 'pull_redeem' : 'proc_send';
  const details: Record<string, unknown> = {};
  if (parsed.nonService) Object.assign(details, { non_service_amount: formatMinor(parsed.nonService.minor, parsed.nonService.currency), non_service_currency: parsed.nonService.currency });
  if (payment.parties.posDevice) details.pos_device = `${payment.parties.posDevice.holderId}.${payment.parties.posDevice.deviceId}`;
  return {
    ended: {
      workflowType, senderId: sender.id, recipientId: recipient.id, senderPersonalId: sender.isIndividual ? sender.id : null,
      recipientPersonalId: recipient.isIndividual ? recipient.id : payment.parties.personalId, currency, private: input.private, message: input.message, appdata: input.appdata, details,
    },
    views: [{ profileId: sender.id, role: 'sender' }, { profileId: recipient.id, role: 'recipient' }],
  };
}

/** After the gate moved the picked cash: redeems what the recipient redeems, and answers the receivables of its own cash come home. */
async function moveCash(unit: Unit, payment: PaymentWrite, device: Device): Promise<store.NewReceivable[]> {
  const { transferId, recipient, picks, currency } = payment;
  const redeemedLoops = [...new Set(picks.filter((pick) => payment.redeemed.has(pick.loopId) && pick.issuerId !== recipient.id).map((pick) => pick.loopId))];
  if (redeemedLoops.length > 0) await redeemArrivedIn(unit, { transferId, redeemerId: recipient.id, designIds: redeemedLoops, number: 2, posDevice: payment.parties.posDevice });
  // The merchant's own brand cash comes home: it stays in circulation and settles nothing.
  const own = new Map<string, bigint>();
  for (const pick of picks) if (pick.issuerId === recipient.id && !recipient.isIndividual) own.set(pick.loopId, (own.get(pick.loopId) ?? 0n) + pick.money.minor);
  return [...own].map(([loopId, received]): store.NewReceivable => ({
    profileId: recipient.id, transferId, ...device, distTid: null, settlementType: 'redeem', receivedCurrency: currency, settleCurrency: currency, loopId,
    isFundable: false, tenderType: 'service', receivedAmount: received, settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: 0n,
  }));
}
