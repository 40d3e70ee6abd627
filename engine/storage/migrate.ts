// Forward-only numbered migrations, applied at start in one transaction under an advisory lock,
// so two processes starting at once apply each migration exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './database.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const migrationLockKey = 7_242_001;
const migrationNamePattern = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  number: number;
  name: string;
  text: string;
}

export function listMigrations(directory = migrationsDir): Migration[] {
  const migrations = readdirSync(directory)
    .filter((name) => name.endsWith('.sql'))
    .map((name) => {
      const match = migrationNamePattern.exec(name);
      if (!match) throw new Error(`migration file name ${name} does not match NNNN_name.sql`);
      return { number: Number(match[1]), name, text: readFileSync(path.join(directory, name), 'utf8') };
    })
    .sort((left, right) => left.number - right.number);
  for (let index = 1; index < migrations.length; index++) {
    if (migrations[index].number === migrations[index - 1].number) {
      throw new Error(`two migrations share number ${migrations[index].number}`);
    }
  }
  return migrations;
}

/** What a start-up says while it migrates: before the first pending migration, and after each one. */
export interface MigrationProgress {
  starting?(pending: number, total: number): void;
  applied?(migration: Migration, step: number, pending: number, elapsedMs: number): void;
}

/** Applies every migration not yet applied; returns the names applied now. */
export async function migrate(sql: Sql, migrations = listMigrations(), progress: MigrationProgress = {}): Promise<string[]> {
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table, and a second process waits here for the first one's:
    // the sessions' request-sized bounds (statement_timeout) do not apply to this transaction.
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${migrationLockKey})`;
    await tx`create table if not exists schema_migrations (
      number integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const appliedRows = await tx<{ number: number }[]>`select number from schema_migrations`;
    const applied = new Set(appliedRows.map((row) => row.number));
    const pending = migrations.filter((migration) => !applied.has(migration.number));
    if (pending.length > 0) progress.starting?.(pending.length, migrations.length);
    const appliedNow: string[] = [];
    for (const migration of pending) {
      const startedMs = performance.now();
      await tx.unsafe(migration.text);
      await tx`insert into schema_migrations (number, name) values (${migration.number}, ${migration.name})`;
      appliedNow.push(migration.name);
      progress.applied?.(migration, appliedNow.length, pending.length, Math.round(performance.now() - startedMs));
    }
    return appliedNow;
  });
}
