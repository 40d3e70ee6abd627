// The point-of-sale domain wired once: payments (pull, processor, consent), settlements and the
// report; its audit check joins the ledger audit (pending and settled amounts must match the cash).
import type { Core } from '../core.ts';
import type { LedgerDomain } from '../ledger/domain.ts';
import { auditMismatchesMax } from '../limits.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { createReport, type Report } from './report.ts';
import { createPosService, type PosService } from './service.ts';
import { createSettlements, type Settlements } from './settlement.ts';
import * as store from './store.ts';

export interface PosDomain {
  payments: PosService;
  settlements: Settlements;
  report: Report;
}

export function createPosDomain(core: Core, dependencies: { profiles: ProfilesService; ledger: LedgerDomain }): PosDomain {
  dependencies.ledger.cash.addAuditCheck(async (db) => {
    const rows = await store.selectSettlementMismatches(db, auditMismatchesMax);
    return rows.map((row) => {
      if (row.kind === 'funded') return `redemption ${row.key}: funded settlements (${row.left_amount}) != reserve released (${row.right_amount})`;
      if (row.kind === 'settled') return `settle transfer ${row.key}: settled rows (${row.left_amount}) != settler's settle movements (${row.right_amount})`;
      return `redemption ${row.key}: the redeemer's settlements (${row.left_amount}) != its report row's funded + pending + settled (${row.right_amount})`;
    });
  });
  return {
    payments: createPosService(core, { profiles: dependencies.profiles, queries: dependencies.ledger.queries }),
    settlements: createSettlements(core),
    report: createReport(core, { profiles: dependencies.profiles }),
  };
}
