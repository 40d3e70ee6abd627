// The ledger: issuance of open loop cash by the operator's designated issuer, holdings (constant
// time from the balances table), and the audit that proves no cash was created or lost.
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { addAuditCheck, audit } from './audit.ts';
import { balance, holdings } from './holdings.ts';
import { issue, issuer, setIssuer } from './issuance.ts';
import type { LedgerService, LedgerContext } from './service-types.ts';
export type { AuditReport, LedgerService } from './service-types.ts';

export { issueFeature } from './issuance.ts';

export function createLedgerService(core: Core, profiles: ProfilesService): LedgerService {
  const ctx: LedgerContext = { core, profiles, auditChecks: [] };
  return {
    addAuditCheck: (check) => addAuditCheck(ctx, check),
    setIssuer: (profileId) => setIssuer(ctx, profileId),
    issuer: (db) => issuer(ctx, db),
    issue: (input) => issue(ctx, input),
    holdings: (db, profileId) => holdings(ctx, db, profileId),
    balance: (db, profileId, loopId, currency) => balance(db, profileId, loopId, currency),
    audit: (db) => audit(ctx, db),
  };
}
