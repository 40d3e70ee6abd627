// The operations of api/routes/ledger.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const ledgerDocs: OperationDocs = {
  getWalletPresend: {
    description:
      "Before sending: what the wallet holds that the recipient accepts, grouped by loop and currency, with the notes and limits the app must show. Does not move anything.",
    example: { recipient_uid: 'sam@example.com' },
    errors: [...pick(ledgerErrors, 'named_profile_not_found')],
  },
  postWalletSend: {
    description:
      "Sends cash to a recipient UID. amounts names loop, currency and amount ('0-USD-10.00' is open loop US dollars); a UID without a wallet gets an invitation transfer that waits for them. dedup_id makes a retry answer the first transfer. Answers the TransferDetail; a refusal is 400 send_failed with send_errors naming each problem (insufficient_funds, cash_not_accepted ...).",
    example: { recipient_uid: 'sam@example.com', amounts: '0-USD-10.00', dedup_id: 'order-1001' },
    errors: [...pick(ledgerErrors, 'send_failed', 'named_profile_not_found', 'named_plan_not_found'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postWalletReceive: {
    description:
      "A merchant receives cash with the payment code the customer shows: the code's waiting transfer releases amount (at most what it holds) to this wallet. Answers the TransferDetail.",
    example: { paycode: '1234-5678-9012', currency: 'USD', amount: '10.00' },
    errors: [...pick(ledgerErrors, 'code_not_found', 'code_already_used', 'code_limited', 'send_failed')],
  },
  postWalletAcceptCode: {
    description:
      "Accepts a waiting invitation transfer by the invitation code its message carried; the cash moves to this wallet. Answers the TransferDetail.",
    example: { code: '123456' },
    errors: [...pick(ledgerErrors, 'invitation_code_not_found', 'own_invitation', 'not_waiting', 'send_failed')],
  },
  getWalletSearch: {
    description:
      "Finds people and businesses to send to by name or UID; with latitude and longitude, the closest located businesses come first. serial_numbers and filters narrow to recipients that accept given cash.",
    example: { q: 'corner' },
    errors: [],
  },
};
