// Every domain's routes. Each domain adds its list here, one line each.
import type { RouteDefinition } from '../http/route.ts';
import { adminRoutes } from './admin.ts';
import { profileRoutes } from './profiles.ts';
import { tokenRoutes } from './tokens.ts';
import { authnRoutes } from './authn.ts';
import { invitationRoutes } from './invitations.ts';
import { oauthRoutes } from './oauth.ts';
import { settingsRoutes } from './settings.ts';
import { ledgerRoutes } from './ledger.ts';
import { transferRoutes } from './transfers.ts';
import { payoutRoutes } from './payouts.ts';
import { ledgerAdminRoutes } from './ledger-admin.ts';
import { tradeRoutes } from './trades.ts';
import { designRoutes } from './designs.ts';
import { paycardRoutes } from './paycards.ts';
import { billRoutes } from './bills.ts';
import { campaignRoutes } from './campaigns.ts';
import { designImageRoutes } from './design-images.ts';
import { designAdminRoutes } from './designs-admin.ts';
import { pullRoutes } from './pull.ts';
import { procRoutes } from './proc.ts';
import { reportRoutes } from './report.ts';
import { operatorListRoutes } from './operator-lists.ts';
import { offerRoutes } from './offers.ts';
import { webhookRoutes } from './webhooks.ts';
import { fundProxyRoutes } from './fundproxy.ts';

export function allRoutes(): RouteDefinition[] {
  return [
    ...profileRoutes,
    ...tokenRoutes,
    ...adminRoutes,
    ...authnRoutes,
    ...invitationRoutes,
    ...oauthRoutes,
    ...settingsRoutes,
    ...ledgerRoutes,
    ...transferRoutes,
    ...payoutRoutes,
    ...ledgerAdminRoutes,
    ...tradeRoutes,
    ...designRoutes,
    ...paycardRoutes,
    ...billRoutes,
    ...campaignRoutes,
    ...designImageRoutes,
    ...designAdminRoutes,
    ...pullRoutes,
    ...procRoutes,
    ...reportRoutes,
    ...operatorListRoutes,
    ...offerRoutes,
    ...webhookRoutes,
    ...fundProxyRoutes,
  ];
}
