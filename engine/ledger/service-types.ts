// The types of service.ts (re-exported there), in a leaf module: the files service.ts imports use them
// without importing service.ts back (no import cycle).
import type { Core } from '../core.ts';
import type { Decimal } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import type { Failure } from './errors.ts';

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

export type AuditCheck = (db: Queryable) => Promise<string[]>;
