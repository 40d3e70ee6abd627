// SQL for the invitation index: who sent each invitation and which profile accepted it.
import type { Queryable } from '../storage/database.ts';

export async function insertInvitation(db: Queryable, row: { id: string; clientId: string; extId: string | null }, now: Date): Promise<void> {
  await db`insert into invitations (id, client_id, ext_id, created_at) values (${row.id}, ${row.clientId}, ${row.extId}, ${now})`;
}

export async function updateExtId(db: Queryable, id: string, extId: string | null): Promise<void> {
  await db`update invitations set ext_id = ${extId} where id = ${id}`;
}

export async function markAccepted(db: Queryable, id: string, profileId: string, now: Date): Promise<void> {
  const result = await db`update invitations set accepted_profile_id = ${profileId}, accepted_at = ${now} where id = ${id}`;
  if (result.count !== 1) throw new Error(`invitation ${id} is missing from the index`);
}

export async function selectAccepted(db: Queryable, profileId: string, clientId: string): Promise<{ id: string; ext_id: string | null } | null> {
  const rows = await db<{ id: string; ext_id: string | null }[]>`
    select id, ext_id from invitations where accepted_profile_id = ${profileId} and client_id = ${clientId}
    order by accepted_at desc limit 1`;
  return rows[0] ?? null;
}

/** The keyed digest of the code an address was sent (a re-send replaces that address's digest only). */
export async function setCodeDigest(db: Queryable, id: string, uid: string, digest: string): Promise<void> {
  const result = await db`
    insert into invitation_code_digests (digest, invitation_id, uid) values (${digest}, ${id}, ${uid})
    on conflict (invitation_id, uid) do update set digest = excluded.digest`;
  if (result.count !== 1) throw new Error(`invitation ${id}: the digest of ${uid}'s code was not written`);
}

export async function selectByCodeDigest(db: Queryable, digest: string): Promise<{ id: string; ext_id: string | null } | null> {
  const rows = await db<{ id: string; ext_id: string | null }[]>`
    select i.id, i.ext_id from invitation_code_digests d join invitations i on i.id = d.invitation_id where d.digest = ${digest}`;
  return rows[0] ?? null;
}

/** A per-installation secret, created on first use; every process reads the same one. */
export async function installationSecret(db: Queryable, name: string, fresh: string, now: Date): Promise<string> {
  await db`insert into installation_secrets (name, value, created_at) values (${name}, ${fresh}, ${now}) on conflict (name) do nothing`;
  const rows = await db<{ value: string }[]>`select value from installation_secrets where name = ${name}`;
  return rows[0].value;
}
