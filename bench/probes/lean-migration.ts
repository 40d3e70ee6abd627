// Moves a database grown by another checkout's API (`npm run bench -- --growth --api-checkout=DIR
// --keep-database`) to this checkout's shape, with the ledger audit before (that checkout's API) and
// after (this one's, which applies the pending migrations as it starts), and the rows that changed:
//   node --import tsx bench/probes/lean-migration.ts <database url> <other checkout> [--drop]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { HttpClient } from '../lib/http-client.ts';
import { httpOperator, type AuditAnswer } from '../scenarios/operator.ts';

const [databaseUrl, otherCheckout] = process.argv.slice(2);
if (!databaseUrl || !otherCheckout) throw new Error('usage: lean-migration.ts <database url> <other checkout> [--drop]');
const environment = loadBenchEnvironment();

async function shape(): Promise<Record<string, string>> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<Record<string, string>[]>`
      select (select count(*) from notes where holder_kind = 'wallet' and loop_id = '0')::text as open_loop_wallet_notes,
        (select max(c) from (select count(*) as c from notes where holder_kind = 'wallet' group by holder_id) w)::text as most_notes_in_a_wallet,
        (select count(*) from actors where kind = 'transfer')::text as transfer_actors,
        (select count(*) from transfers)::text as transfers,
        (select count(*) from outbox)::text as outbox_rows,
        (select count(*) from transfer_views)::text as transfer_views,
        (select sum(amount) from balances)::text as balances_total,
        pg_size_pretty(pg_database_size(current_database())) as size,
        (select coalesce(max(number), 0) from schema_migrations where number < 1000)::text as last_core_or_ledger_migration`;
    return row;
  } finally {
    await sql.end();
  }
}

async function auditWith(cwd: string | undefined): Promise<{ audit: AuditAnswer; startMs: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-lean-migration-'));
  const startedAt = performance.now();
  const api = await startApiProcess({ databaseUrl, redisUrl: environment.redisUrl, dataDir, cwd });
  const startMs = performance.now() - startedAt;
  const client = new HttpClient(api.baseUrl, 2);
  try {
    return { audit: await httpOperator(client, api.operatorKey).audit(), startMs };
  } finally {
    client.close();
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const before = await shape();
const auditBefore = await auditWith(otherCheckout);
const migrated = await auditWith(undefined);
const after = await shape();
process.stdout.write(`${JSON.stringify({ before, auditBefore: auditBefore.audit.ok ? 'balanced' : auditBefore.audit.problems, startWithMigrationsMs: Math.round(migrated.startMs), after, auditAfter: migrated.audit.ok ? 'balanced' : migrated.audit.problems }, null, 2)}\n`);
if (process.argv.includes('--drop')) {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = postgres(environment.postgresUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
