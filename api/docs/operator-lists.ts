// The operations of api/routes/operator-lists.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const operatorListDocs: OperationDocs = {
  getAdminApps: {
    description:
      "Lists apps, newest first, up to limit; never their secrets. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  getAdminProfiles: {
    description:
      "Lists profiles, newest first, up to limit; filter by site or kind (individual or business). Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  getAdminLedgerAccounts: {
    description:
      "Lists registered bank (DFI) accounts, newest first; filter by owner. Account numbers show their last four digits only. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
};
