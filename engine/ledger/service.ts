// The ledger: issuance of open loop cash by the operator's designated issuer, holdings (constant
// time from the balances table), and the audit that proves no cash was created or lost.
import type { Core } from '../core.ts';
import type { Decimal } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { addAuditCheck, audit, type AuditCheck } from './audit.ts';
import type { Failure } from './errors.ts';
import { balance, holdings } from './holdings.ts';
import { issue, issuer, setIssuer } from './issuance.ts';

export { issueFeature, issuerSettingName } from './issuance.ts';

export interface AuditReport {
  ok: boolean;
  totals: { loop_id: string; currency: string; issued: string; redeemed: string; held: string; in_flight: string; reserved: string; expired: string }[];
  /** Per design: the open loop reserve and what its outstanding fundable brand cash needs. */
  reserves: { design_id: string; currency: string; reserve: string; needed: string }[];
  problems: string[];
}

export interface LedgerService {
  /** Designates the profile that issues open loop cash for the operator (it must have issue_open_loop). */
  setIssuer(profileId: string): Promise<{ ok: true } | Failure>;
  /** The designated issuer (read in db, by default outside any transaction). */
  issuer(db?: Queryable): Promise<string | null>;
  /** Issues open loop cash to a profile: movement 1 `issue` (from none to the issuer), movement 2 `grant` (issuer to holder). */
  issue(input: { toProfileId: string; amount: Decimal; currency: string; issuerId?: string }): Promise<{ ok: true; transferId: string; serial: string } | Failure>;
  holdings(db: Queryable | undefined, profileId: string): Promise<{ loop_id: string; currency: string; title?: string; thumbnail?: string | null; amount: string; expiring: { amount: string; expire_time: string }[] }[]>;
  balance(db: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint>;
  audit(db?: Queryable): Promise<AuditReport>;
  /** Adds a domain's own audit check (its problems join the report): point-of-sale settlements. */
  addAuditCheck(check: (db: Queryable) => Promise<string[]>): void;
}

export interface LedgerContext {
  core: Core;
  profiles: ProfilesService;
  /** Checks other domains added; their problems join every audit report. */
  auditChecks: AuditCheck[];
}

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
