// The operations of api/routes/proc.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { posErrors } from '../routes/pos-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const procDocs: OperationDocs = {
  getProcSendable: {
    description:
      "For a payment processor acting for a sender: the sender's brand cash and whether the recipient accepts each loop. Needs a processor token the sender granted.",
    example: { sender_id: '1234567890', recipient_id: '2345678901' },
    errors: [...pick(posErrors, 'processor_token_required', 'processor_not_granted', 'recipient_not_accepting', 'sender_not_found')],
  },
  getProcRedeemable: {
    description:
      "Deprecated alias of GET /proc/sendable, kept for old processors; answers the same.",
    example: { sender_id: '1234567890', recipient_id: '2345678901' },
    errors: [...pick(posErrors, 'processor_token_required', 'processor_not_granted', 'recipient_not_accepting', 'sender_not_found')],
  },
  postProcSend: {
    description:
      "A payment processor sends brand cash for the sender that granted its token, to an accepting business or an individual; redeemed cash settles per its plan. Answers the TransferDetail.",
    example: { sender_id: '1234567890', recipient_id: '2345678901', amounts: '1234567890-USD-5.00' },
    errors: [...pick(posErrors, 'processor_token_required', 'processor_not_granted', 'recipient_not_accepting', 'sender_not_found'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postProcRedeem: {
    description:
      "Deprecated alias of POST /proc/send, kept for old processors; does the same.",
    example: { sender_id: '1234567890', recipient_id: '2345678901', amounts: '1234567890-USD-5.00' },
    errors: [...pick(posErrors, 'processor_token_required', 'processor_not_granted', 'recipient_not_accepting', 'sender_not_found'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
};
