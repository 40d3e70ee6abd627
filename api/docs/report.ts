// The operations of api/routes/report.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { posErrors } from '../routes/pos-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const reportDocs: OperationDocs = {
  postWalletReportReceivable: {
    description:
      "The merchant's received-and-receivable report between two dates: one row per payment part received (redemptions, outside tender) with what settled and what is pending, filterable by POS device and settlement type. csv true streams CSV; JSON is refused past its row limit.",
    example: { start_date: '2026-11-01', end_date: '2026-11-30' },
    errors: [...pick(posErrors, 'report_too_large')],
  },
  postDesignSettle: {
    description:
      "A settler pays a batch (limit) of the design's pending settlements in open loop cash from its own wallet; repeat until pending is 0.",
    example: { designId: '1234567890' },
    errors: [...pick(posErrors, 'design_not_found', 'not_settler'), ...pick(ledgerErrors, 'send_failed')],
  },
  getDesignSettlements: {
    description:
      "What the design's redemptions left pending, per currency, for its settlers.",
    example: { designId: '1234567890' },
    errors: [...pick(posErrors, 'design_not_found', 'not_settler')],
  },
  postAdminDesignsSettle: {
    description:
      "The operator settles a batch of a design's pending settlements; the design's first active settler (else its issuer) pays. Operator key (the CLI drives it).",
    example: { designId: '1234567890' },
    errors: [...pick(posErrors, 'design_not_found', 'no_settler'), ...pick(ledgerErrors, 'send_failed')],
  },
};
