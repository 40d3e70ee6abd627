// Per-installation secrets in the database, so every API process of one installation shares them.
import type { Queryable } from './database.ts';

/** The secret called name, created from fresh on first use; every process reads the same one. */
export async function installationSecret(db: Queryable, name: string, fresh: string, now: Date): Promise<string> {
  await db`insert into installation_secrets (name, value, created_at) values (${name}, ${fresh}, ${now}) on conflict (name) do nothing`;
  const rows = await db<{ value: string }[]>`select value from installation_secrets where name = ${name}`;
  return rows[0].value;
}
