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

/** Applies every migration not yet applied; returns the names applied now. */
export async function migrate(sql: Sql, migrations = listMigrations()): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${migrationLockKey})`;
    await tx`create table if not exists schema_migrations (
      number integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const appliedRows = await tx<{ number: number }[]>`select number from schema_migrations`;
    const applied = new Set(appliedRows.map((row) => row.number));
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.number)) continue;
      await tx.unsafe(migration.text);
      await tx`insert into schema_migrations (number, name) values (${migration.number}, ${migration.name})`;
      appliedNow.push(migration.name);
    }
    return appliedNow;
  });
}
