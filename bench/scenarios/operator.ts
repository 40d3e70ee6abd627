// The operator's cash calls (designate the issuer, issue cash, audit). Normally the admin API;
// until the ledger's admin routes exist, the same engine services opened in the bench process on
// the bench database (real Postgres only), so sends can be measured meanwhile. The report says
// which was used.
import { loadConfig } from '../../engine/config.ts';
import { createEngine, type Engine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/logger.ts';
import { createMetrics } from '../../engine/metrics.ts';
import { bearer, type HttpClient } from '../lib/http-client.ts';
import { wellFormedDecimal } from '../../engine/money.ts';

export interface AuditAnswer {
  ok: boolean;
  problems: string[];
  totals: unknown[];
}

export interface Operator {
  kind: 'admin API' | 'engine in the bench process';
  setIssuer(profileId: string): Promise<void>;
  issue(profileId: string, amount: string, currency: string): Promise<void>;
  audit(): Promise<AuditAnswer>;
  close(): Promise<void>;
}

export const adminPaths = Object.freeze({
  cashIssuer: '/admin/ledger/issuer',
  cashIssue: '/admin/ledger/issue',
  audit: '/admin/ledger/audit',
});

export function httpOperator(client: HttpClient, operatorKey: string): Operator {
  const auth = bearer(operatorKey);
  return {
    kind: 'admin API',
    async setIssuer(profileId) {
      await client.json('POST', adminPaths.cashIssuer, { uid: `service:${profileId}` }, auth);
    },
    async issue(profileId, amount, currency) {
      await client.json('POST', adminPaths.cashIssue, { to_uid: `service:${profileId}`, amount, currency }, auth);
    },
    audit: () => client.json('GET', adminPaths.audit, undefined, auth),
    async close() {},
  };
}

export async function engineOperator(databaseUrl: string, redisUrl: string): Promise<Operator> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOG_LEVEL: 'error', DATA_DIR: '/tmp/cashloop-bench-operator' });
  const engine: Engine = await createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics() });
  const { ledger } = engine.services;
  return {
    kind: 'engine in the bench process',
    async setIssuer(profileId) {
      const result = await ledger.cash.setIssuer(profileId);
      if (!result.ok) throw new Error(`setIssuer: ${JSON.stringify(result)}`);
    },
    async issue(profileId, amount, currency) {
      const result = await ledger.cash.issue({ toProfileId: profileId, amount: wellFormedDecimal(amount), currency });
      if (!result.ok) throw new Error(`issue: ${JSON.stringify(result)}`);
    },
    async audit() {
      const report = await ledger.cash.audit();
      return { ok: report.ok, problems: report.problems, totals: report.totals };
    },
    async close() {
      await engine.close();
    },
  };
}
