// SQL for settings: the square profile image renditions kept in Postgres.
import type { Queryable } from '../storage/database.ts';

export async function upsertImage(db: Queryable, profileId: string, sizePx: number, contentType: string, bytes: Buffer, now: Date): Promise<number> {
  const rows = await db<{ version: number }[]>`
    insert into profile_images (profile_id, size_px, content_type, bytes, version, updated_at)
    values (${profileId}, ${sizePx}, ${contentType}, ${bytes}, 1, ${now})
    on conflict (profile_id, size_px) do update set content_type = excluded.content_type, bytes = excluded.bytes,
      version = profile_images.version + 1, updated_at = excluded.updated_at
    returning version`;
  return rows[0].version;
}

export async function selectImage(db: Queryable, profileId: string, sizePx: number): Promise<{ content_type: string; bytes: Buffer } | null> {
  const rows = await db<{ content_type: string; bytes: Buffer }[]>`
    select content_type, bytes from profile_images where profile_id = ${profileId} and size_px = ${sizePx}`;
  return rows[0] ?? null;
}
