// The documentation of every operation, one table per route file (api/routes/<file>.ts ->
// api/docs/<file>.ts), keyed by operationId. A route without an entry fails test/openapi-complete.test.ts.
import type { OperationDocs } from '../http/operation-docs.ts';
import { adminDocs } from './admin.ts';
import { profileDocs } from './profiles.ts';
import { tokenDocs } from './tokens.ts';
import { authnDocs } from './authn.ts';
import { invitationDocs } from './invitations.ts';
import { oauthDocs } from './oauth.ts';
import { settingsDocs } from './settings.ts';
import { ledgerDocs } from './ledger.ts';
import { transferDocs } from './transfers.ts';
import { payoutDocs } from './payouts.ts';
import { ledgerAdminDocs } from './ledger-admin.ts';
import { tradeDocs } from './trades.ts';
import { designDocs } from './designs.ts';
import { paycardDocs } from './paycards.ts';
import { billDocs } from './bills.ts';
import { campaignDocs } from './campaigns.ts';
import { designImageDocs } from './design-images.ts';
import { designAdminDocs } from './designs-admin.ts';
import { pullDocs } from './pull.ts';
import { procDocs } from './proc.ts';
import { reportDocs } from './report.ts';
import { operatorListDocs } from './operator-lists.ts';
import { offerDocs } from './offers.ts';
import { webhookDocs } from './webhooks.ts';
import { fundProxyDocs } from './fundproxy.ts';

export const operationDocs: OperationDocs = {
  ...adminDocs,
  ...profileDocs,
  ...tokenDocs,
  ...authnDocs,
  ...invitationDocs,
  ...oauthDocs,
  ...settingsDocs,
  ...ledgerDocs,
  ...transferDocs,
  ...payoutDocs,
  ...ledgerAdminDocs,
  ...tradeDocs,
  ...designDocs,
  ...paycardDocs,
  ...billDocs,
  ...campaignDocs,
  ...designImageDocs,
  ...designAdminDocs,
  ...pullDocs,
  ...procDocs,
  ...reportDocs,
  ...operatorListDocs,
  ...offerDocs,
  ...webhookDocs,
  ...fundProxyDocs,
};
