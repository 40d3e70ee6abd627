// The operations of api/routes/transfers.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const transferDocs: OperationDocs = {
  getWalletHistory: {
    description:
      "The profile's transfers, newest first by default (order by start or timestamp), paged by offset and limit; more says whether another page exists. appdata.<name> parameters keep transfers whose app data match.",
    example: {},
    errors: [],
  },
  postWalletHistorySync: {
    description:
      "For apps that keep a copy: transfers changed after sync_ts (and, at the same instant, after transfer_id), oldest change first. Call again with the last one's timestamp and id until none remain.",
    example: { sync_ts: '2026-11-01T00:00:00Z' },
    errors: [],
  },
  getTransferByTransferId: {
    description:
      "One transfer in full (TransferDetail): movements, state, payment codes and messages. Only its stakeholders (sender, recipient, their managers) may see it; to anyone else it does not exist.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_stakeholder')],
  },
  postTransferRetract: {
    description:
      "Retracts a waiting transfer with a reason: the cash returns to the sender. Needs manage_sent for the sender, or manage_received for a transfer the recipient started. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012', reason: 'Sent to the wrong person' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'cannot_retract', 'invalid_reason', 'wrong_permission', 'not_initiator')],
  },
  postTransferSkip: {
    description:
      "Skips the payment code or the hold of a transfer the caller initiated, so it completes now. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_initiator')],
  },
  postTransferChangePaycodeExpiration: {
    description:
      "Sets a new expiry, at most 10 years ahead, on a transfer waiting for its payment code. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012', paycode: '1234-5678-9012', expire_seconds: 86400 },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'paycode_mismatch', 'not_initiator')],
  },
  postTransferAccept: {
    description:
      "The invited recipient accepts an invitation transfer: the cash moves to their wallet. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_recipient', 'send_failed'), ...pick(ledgerErrors, 'agreement_inactive')],
  },
  postTransferRefuse: {
    description:
      "The invited recipient refuses an invitation transfer: the cash returns to the sender. Answers the TransferDetail.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_recipient')],
  },
  postTransferResend: {
    description:
      "Sends the invitation message of a waiting invitation transfer again, to the same address. Throttled per address, app and client address.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_initiator')],
  },
};
