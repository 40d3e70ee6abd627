// The operations of api/routes/bills.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const billDocs: OperationDocs = {
  postTransferConfirmBill: {
    description:
      "The billed customer says the bill was paid another way (bank, amount, date): reminders stop, and the bill stays cancelable until its payment is recorded.",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_recipient')],
  },
  postAdminBillsPaid: {
    description:
      "Records a bill payment received outside Cashloop; the brand cash issues to the customer. Operator key (the CLI drives it).",
    example: { transferId: '1234-5678-9012' },
    errors: [...pick(ledgerErrors, 'transfer_not_found', 'not_waiting', 'not_recipient'), ...pick(ledgerErrors, 'agreement_inactive')],
  },
};
