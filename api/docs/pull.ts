// The operations of api/routes/pull.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { posErrors } from '../routes/pos-errors.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const pullDocs: OperationDocs = {
  getPullRedeemable: {
    description:
      "At a merchant terminal: the customer's brand cash this merchant redeems (its own designs and those it has an active redeemer agreement for). Needs the customer's pull consent.",
    example: { sender_uid: 'sam@example.com' },
    errors: [...pick(posErrors, 'pull_not_enabled', 'pull_not_consented', 'sender_not_found')],
  },
  postPullRedeem: {
    description:
      "Pulls brand cash from a consenting customer's wallet to the merchant, with any rest of the bill paid another way (non_service_amount). Redeemed cash settles per its plan; the token's device is the POS device in reports. Answers the TransferDetail.",
    example: { sender_uid: 'sam@example.com', amounts: '1234567890-USD-5.00', dedup_id: 'sale-1001' },
    errors: [...pick(posErrors, 'pull_not_enabled', 'pull_not_consented', 'sender_not_found'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postWalletPullConsent: {
    description:
      "The customer lets a merchant pull brand cash from this wallet at its terminals, until revoked.",
    example: { merchant_uid: 'shop@example.com' },
    errors: [...pick(posErrors, 'sender_not_found')],
  },
  postWalletPullConsentRevoke: {
    description:
      "The customer withdraws a merchant's pull consent; its terminals can no longer pull from this wallet.",
    example: { merchant_uid: 'shop@example.com' },
    errors: [...pick(posErrors, 'sender_not_found')],
  },
  getWalletPullConsents: {
    description:
      "The merchants this wallet has let pull brand cash at their terminals, until each consent is revoked.",
    example: {},
    errors: [],
  },
};
