// The operations of api/routes/payouts.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const payoutDocs: OperationDocs = {
  getWalletAccountPresend: {
    description:
      "Before paying out to a registered bank account: the deposit offers for the amount, each with add-fee and subtract-fee options. Pass the chosen names to POST /wallet/account/{accountId}/send.",
    example: { accountId: '1234567890', amount: '10.00' },
    errors: [...pick(ledgerErrors, 'bank_account_not_found', 'invalid_amount')],
  },
  postWalletAccountSend: {
    description:
      "Sends open loop cash to a registered bank account with the offer and fee option chosen from presend; dedup_id makes a retry answer the first transfer. Answers the TransferDetail.",
    example: { accountId: '1234567890', amount: '10.00', offer_name: 'standard', fee_option_name: 'add', dedup_id: 'payout-1' },
    errors: [...pick(ledgerErrors, 'bank_account_not_found', 'deposit_offer_not_found', 'send_failed', 'invalid_amount'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postWalletSendDfi: {
    description:
      "Sends open loop cash to any bank account (routing and account number) with the recipient's name; the fee is added. Answers the TransferDetail.",
    example: { currency: 'USD', amount: '10.00', fee: '0.50', recipient_about: { name: 'Sam Lee' }, recipient_account: { routing_number: '021000021', account_number: '000123456789' } },
    errors: [...pick(ledgerErrors, 'send_failed', 'invalid_amount'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postWalletSendFx: {
    description:
      "Sends open loop cash to a bank account in another currency at the operator's exchange rate, optionally holding it hold_seconds first. Answers the TransferDetail.",
    example: { currency: 'USD', amount: '10.00', fee: '0.50', recipient_about: { name: 'Sam Lee' }, recipient_account: { routing_number: '021000021', account_number: '000123456789' }, fx: { currency: 'EUR' } },
    errors: [...pick(ledgerErrors, 'send_failed', 'rate_not_found', 'invalid_amount'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
};
