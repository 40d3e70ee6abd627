// The operations of api/routes/ledger-admin.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { profileErrors } from '../routes/profiles.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const ledgerAdminDocs: OperationDocs = {
  postAdminLedgerIssuer: {
    description:
      "Designates the profile (it needs the issue_open_loop feature) that issues the operator's open loop cash. Operator key (the CLI drives it).",
    example: { uid: 'pat@example.com' },
    errors: [...pick(ledgerErrors, 'named_profile_not_found', 'not_issuer')],
  },
  getAdminLedgerIssuer: {
    description:
      "The designated open loop issuer, or none. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  postAdminLedgerIssue: {
    description:
      "Issues open loop cash from the designated issuer to a profile: an issue movement then a grant, in one transfer. Operator key (the CLI drives it).",
    example: { to_uid: 'pat@example.com', amount: '100.00', currency: 'USD' },
    errors: [...pick(ledgerErrors, 'no_issuer', 'named_profile_not_found', 'send_failed', 'invalid_amount')],
  },
  getAdminLedgerAudit: {
    description:
      "Checks the whole ledger: per loop and currency, issued equals held plus in flight plus redeemed; every note is accounted for; no balance is negative. Answers the totals and any problems found. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  getAdminLedgerHoldingsByProfileId: {
    description:
      "A profile's holdings per loop and currency, read from the balances table in constant time. The path names the profile by its id or any UID (service:<id>, email:, phone:, username:, or a bare email or +phone); a UID naming no profile answers 404, never an empty list. Operator key (the CLI drives it: cashloop cash holdings).",
    example: { profileId: 'service:1234567890' },
    errors: [...pick(profileErrors, 'profile_not_found')],
  },
  postAdminLedgerAccounts: {
    description:
      "Registers a bank (DFI) account to a profile, for payouts by POST /wallet/account/{accountId}/send. Operator key (the CLI drives it).",
    example: { routing_number: '021000021', account_number: '000123456789', uid: 'pat@example.com', holder_name: 'Pat Lee' },
    errors: [...pick(ledgerErrors, 'named_profile_not_found')],
  },
  postAdminLedgerFxRates: {
    description:
      "Sets the exchange rate (destination units per source unit) that send-fx uses for a pair of currencies. Operator key (the CLI drives it).",
    example: { source_currency: 'USD', dest_currency: 'EUR', rate: '0.92' },
    errors: [],
  },
  getAdminLedgerFxRates: {
    description:
      "The exchange-rate table send-fx uses. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
};
