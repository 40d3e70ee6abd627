// Every domain service, built on the core. Each domain adds itself here, one line each.
import type { Core } from './core.ts';
import { createAppsService, type AppsService } from './apps/service.ts';
import { createProfilesService, type ProfilesService } from './profiles/service.ts';
import { createTokensService, type TokensService } from './tokens/service.ts';
import { createProfileAccessService, type ProfileAccessService } from './profiles/access.ts';
import { createMessagesService, type MessagesService } from './messages/service.ts';
import { createInvitationsService, type InvitationsService } from './invitations/service.ts';
import { createAuthnService, type AuthnService } from './authn/service.ts';
import { createOauthService, type OauthService } from './oauth/service.ts';
import { createSettingsService, type SettingsService } from './settings/service.ts';
import { createLedgerDomain, type LedgerDomain } from './ledger/domain.ts';
import { createBillsService, type BillsService } from './designs/bills.ts';
import { createCampaignsService, type CampaignsService } from './designs/campaigns.ts';
import { createCirculation, type Circulation } from './designs/circulation.ts';
import { createDesignsService, type DesignsService } from './designs/service.ts';
import { createDesignImagesService, type DesignImagesService } from './designs/images.ts';
import { createPosDomain, type PosDomain } from './pos/domain.ts';
import { createOperatorListsService, type OperatorListsService } from './operator/service.ts';
import { createOffersService, type OffersService } from './offers/service.ts';
import { createPaycardsService, type PaycardsService } from './paycards/service.ts';
import { createWebhooksService, type WebhooksService } from './webhooks/service.ts';
import { createFundProxyService, type FundProxyService } from './fundproxy/service.ts';
import { createFeedService, type FeedService } from './feed/service.ts';
import type { Redis } from 'ioredis';

export interface Services {
  core: Core;
  apps: AppsService;
  profiles: ProfilesService;
  /** Profile operations as the API asks for them (routes use this, never the store-level ProfilesService). */
  profileAccess: ProfileAccessService;
  tokens: TokensService;
  messages: MessagesService;
  invitations: InvitationsService;
  authn: AuthnService;
  oauth: OauthService;
  settings: SettingsService;
  ledger: LedgerDomain;
  designs: DesignsService;
  circulation: Circulation;
  bills: BillsService;
  campaigns: CampaignsService;
  designImages: DesignImagesService;
  operatorLists: OperatorListsService;
  offers: OffersService;
  paycards: PaycardsService;
  pos: PosDomain;
  webhooks: WebhooksService;
  fundProxy: FundProxyService;
  feed: FeedService;
}

export async function createServices(core: Core, shared: { redis: Redis | null; keyPrefix: string } = { redis: null, keyPrefix: 'cashloop:' }): Promise<Services> {
  const apps = createAppsService(core);
  const profiles = createProfilesService(core);
  const tokens = createTokensService(core, { profiles });
  const messages = createMessagesService(core);
  const invitations = createInvitationsService(core, { messages });
  const authn = createAuthnService(core, { apps, profiles, tokens, messages, invitations });
  const oauth = createOauthService(core, { apps, authn, tokens });
  const settings = createSettingsService(core, { authn, profiles });
  const ledger = createLedgerDomain(core, { profiles, invitations });
  const designs = createDesignsService(core, { profiles, messages });
  const circulation = createCirculation(core, { profiles, transfers: ledger.transfers, messages, audit: ledger.cash });
  const bills = createBillsService(core, { profiles, transfers: ledger.transfers, messages });
  const designImages = createDesignImagesService(core);
  const operatorLists = createOperatorListsService(core);
  const offers = createOffersService(core, { profiles, tokens, apps, messages, ledger });
  const pos = createPosDomain(core, { profiles, ledger });
  return {
    core, apps, profiles, profileAccess: createProfileAccessService(core, { profiles, tokens }), tokens, messages, invitations, authn, oauth, settings, ledger, designs, circulation, bills, campaigns: createCampaignsService(core), designImages,
    operatorLists, offers, pos, paycards: createPaycardsService(core), webhooks: createWebhooksService(core, { queries: ledger.queries }),
    fundProxy: createFundProxyService(core, { profiles }), feed: await createFeedService(core, { profiles, tokens, ...shared }),
  };
}
