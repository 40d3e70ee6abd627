// The cash ledger's services, wired together once: the ledger (issuance, holdings, audit),
// transfers (send, receive, retract, history) and payouts (bank deposits). Registers the
// holdings and accounts that ProfileDetail shows, and the invitation effect of invitation transfers.
import type { Core } from '../core.ts';
import type { InvitationsService } from '../invitations/service.ts';
import { createPayoutsService, type PayoutsService } from '../payouts/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { createTransferQueries, type TransferQueries } from '../transfers/queries.ts';
import { searchProfiles, type SearchInput, type SearchRejection } from '../transfers/search.ts';
import { createTransfersService, type TransfersService } from '../transfers/service.ts';
import { transferById } from '../transfers/rows.ts';
import { createTradesService, type TradesService } from '../transfers/trade.ts';
import { viewProblems } from '../transfers/view-checks.ts';
import { createLedgerService } from './service.ts';
import type { LedgerService } from './service-types.ts';
import { defaultCountries } from '../limits.ts';

export interface LedgerDomain {
  cash: LedgerService;
  transfers: TransfersService;
  queries: TransferQueries;
  payouts: PayoutsService;
  trades: TradesService;
  /** GET /wallet/search: people or businesses to send to. */
  search(input: SearchInput): Promise<{ ok: true; results: Record<string, unknown>[]; more: boolean } | SearchRejection>;
}

export function createLedgerDomain(core: Core, dependencies: { profiles: ProfilesService; invitations: InvitationsService }): LedgerDomain {
  const { profiles } = dependencies;
  const cash = createLedgerService(core, profiles);
  const transfers = createTransfersService(core, profiles, dependencies.invitations);
  const queries = createTransferQueries(core, profiles);
  const payouts = createPayoutsService(core, { profiles, ledger: cash, transfers });
  // history_sync's `remain` reads each profile's count of views: the audit proves it equals the views.
  cash.addAuditCheck(viewProblems);
  profiles.registerHoldingsProvider((db, profileId) => cash.holdings(db, profileId));
  profiles.registerAccountsProvider((db, profileId) => payouts.accountsJson(db, profileId));
  // A resent invitation transfer sends its invitation again through the invitations domain.
  core.outbox.register('transfer.invitation', async (payload: { transferId: string }) => {
    const row = await transferById(core.sql, payload.transferId);
    const inviteId = row?.details.invite_id as string | undefined;
    const clientId = row?.details.invite_client_id as string | undefined;
    if (!inviteId || !clientId) return;
    const result = await dependencies.invitations.reinvite(clientId, inviteId, { countries: defaultCountries });
    if (!result.ok) core.logger.warn('invitation transfer could not be re-sent', { transferId: payload.transferId, error: result.error });
  });
  const trades = createTradesService(core, profiles, transfers);
  return { cash, transfers, queries, payouts, trades, search: (input) => searchProfiles(core, profiles, input) };
}
