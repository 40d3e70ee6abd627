// The operations of api/routes/trades.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const tradeDocs: OperationDocs = {
  postWalletTrade: {
    description:
      "Offers cash to a recipient in exchange for other cash (expect_amounts); the offered cash waits in escrow until the recipient accepts, the sender retracts, or accept_expire_seconds pass. Answers the TransferDetail.",
    example: { recipient_uid: 'sam@example.com', amounts: [{ loop_id: '0', currency: 'USD', amount: '10.00' }], expect_amounts: [{ loop_id: '1234567890', currency: 'USD', amount: '10.00' }] },
    errors: [...pick(ledgerErrors, 'send_failed', 'named_profile_not_found', 'named_plan_not_found'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postTransferAcceptTrade: {
    description:
      "The trade's recipient accepts: its expected cash goes to the sender and the offered cash comes to it, in one step. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_recipient', 'send_failed', 'named_plan_not_found')],
  },
};
