// The operations of api/routes/fundproxy.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { fundProxyErrors } from '../routes/fundproxy.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const fundProxyDocs: OperationDocs = {
  postFundproxyGetAch: {
    description:
      "A server app gets, or creates the first time, an ACH funding proxy: an account number on which arriving money is issued by the issuer, passed through the distributor if one is named, and lands in the recipient's wallet. Idempotent.",
    example: { routing_number: '021000021', issuer_uid: 'username:corner-bank', recipient_uid: 'username:pat' },
    errors: [],
  },
  getFundproxyGetAch: {
    description:
      "The same call as POST /fundproxy/get-ach, by query parameters: gets or creates the ACH funding proxy. Idempotent.",
    example: { routing_number: '021000021', issuer_uid: 'username:corner-bank', recipient_uid: 'username:pat' },
    errors: [],
  },
  postAdminFundproxyDeposit: {
    description:
      "The simulated ACH rail: money arrives for a proxy's account number and becomes a receive_ach_confirm transfer; a repeated trace_number answers the first deposit when the amount is the same, 409 trace_number_reused when it is not. Operator key (the CLI drives it).",
    example: { account_number: '000123456789', amount: '50.00', trace_number: '021000020000001' },
    errors: [...pick(fundProxyErrors, 'proxy_account_not_found', 'recipient_wallet_closed', 'issuer_not_permitted', 'trace_number_reused')],
  },
};
