// The embedded default: the API process with no DATABASE_URL and no REDIS_URL (PGlite in a temp
// DATA_DIR, in-process locks), sends at the maximum rate, then the audit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchPlan } from '../config.ts';
import { noteStoppedEarly, startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { HttpClient } from '../lib/http-client.ts';
import type { PhaseResult } from '../lib/load.ts';
import { CashloopSetup, paths } from '../scenarios/cashloop.ts';
import { adminPaths, httpOperator } from '../scenarios/operator.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

export interface EmbeddedResult {
  ledgerRoutes: boolean;
  sends: PhaseResult | null;
  audit: { ok: boolean; problems: string[] } | null;
  notes: string[];
}

const walletFunding = '100000.00';

export async function runEmbedded(plan: BenchPlan, log: (message: string) => void): Promise<EmbeddedResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-embedded-'));
  let api: ApiProcess | null = null;
  let client: HttpClient | null = null;
  const result: EmbeddedResult = { ledgerRoutes: false, sends: null, audit: null, notes: [] };
  try {
    api = await startApiProcess({ dataDir });
    client = new HttpClient(api.baseUrl, plan.pgliteConcurrency + 4);
    const setup = new CashloopSetup(client, api.operatorKey);
    result.ledgerRoutes = (await setup.routeExists('POST', paths.send)) && (await setup.routeExists('POST', adminPaths.cashIssue));
    if (!result.ledgerRoutes) {
      // PGlite belongs to the API process, so the bench cannot issue cash any other way.
      result.notes.push(`POST ${paths.send} or POST ${adminPaths.cashIssue} does not exist yet; embedded sends skipped (PGlite belongs to the API process, so cash can only be issued through the admin API).`);
      return result;
    }
    setup.operator = httpOperator(client, api.operatorKey);
    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const wallets = await setup.wallets(app, plan.pgliteWallets);
    await setup.fund(wallets, walletFunding);
    const source = uniformSource(wallets);
    await maxRate('warm-up', client, source, plan.pgliteConcurrency, plan.warmupSeconds);
    result.sends = await maxRate('P2P sends on PGlite', client, source, plan.pgliteConcurrency, plan.pgliteSendSeconds);
    log(`PGlite sends: ${result.sends.ratePerSecond.toFixed(0)}/s, p99 ${result.sends.latency.p99Ms.toFixed(1)} ms, ${result.sends.failed} failed`);
    result.audit = await setup.audit();
    return result;
  } catch (error) {
    noteStoppedEarly(result, api, log, 'embedded phase', error);
    return result;
  } finally {
    client?.close();
    await api?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
