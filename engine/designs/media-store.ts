// SQL of design images and icons (migration 0450): one media row per upload, the rendition
// bytes beside it.
import type { Queryable, TransactionSql } from '../storage/database.ts';

export type RenditionName = 'full' | 'thumbnail' | 'full_zoom' | 'full_fit' | 'thumbnail_zoom' | 'thumbnail_fit';

export interface Rendition {
  rendition: RenditionName;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  bytes: Buffer;
}

export interface MediaRow {
  media_id: string;
  design_id: string;
  kind: 'image' | 'icon';
  denomination_minor: bigint | null;
  source_format: string;
  source_width: number;
  source_height: number;
  created_at: Date;
}

export interface MediaInsert {
  mediaId: string;
  designId: string;
  kind: 'image' | 'icon';
  denominationMinor: bigint | null;
  sourceFormat: string;
  sourceWidth: number;
  sourceHeight: number;
}

/** Removes the image of one slot (the design's own when denominationMinor is null); its renditions go with it. */
export async function deleteImageSlot(tx: TransactionSql, designId: string, denominationMinor: bigint | null): Promise<void> {
  await tx`
    delete from design_media where design_id = ${designId} and kind = 'image'
      and coalesce(denomination_minor, 0) = ${denominationMinor === null ? '0' : String(denominationMinor)}::bigint`;
}

/** Removes every icon of a design but the one kept (the current icon stays until replaced). */
export async function deleteIconsExcept(tx: TransactionSql, designId: string, keepMediaId: string | null): Promise<void> {
  await tx`delete from design_media where design_id = ${designId} and kind = 'icon' and media_id is distinct from ${keepMediaId}`;
}

export async function insertMedia(tx: TransactionSql, row: MediaInsert, renditions: readonly Rendition[], at: Date): Promise<void> {
  await tx`
    insert into design_media (media_id, design_id, kind, denomination_minor, source_format, source_width, source_height, created_at)
    values (${row.mediaId}, ${row.designId}, ${row.kind}, ${row.denominationMinor === null ? null : String(row.denominationMinor)}, ${row.sourceFormat},
      ${row.sourceWidth}, ${row.sourceHeight}, ${at})`;
  for (const rendition of renditions) {
    await tx`
      insert into design_media_renditions (media_id, rendition, content_type, width, height, bytes)
      values (${row.mediaId}, ${rendition.rendition}, ${rendition.contentType}, ${rendition.width}, ${rendition.height}, ${rendition.bytes})`;
  }
}

export async function countImages(db: Queryable, designId: string): Promise<number> {
  const rows = await db<{ count: number }[]>`select count(*)::int as count from design_media where design_id = ${designId} and kind = 'image'`;
  return rows[0].count;
}

/** A design's images, the design's own first, then by denomination. */
export async function selectImages(db: Queryable, designId: string): Promise<MediaRow[]> {
  return db<MediaRow[]>`
    select media_id, design_id, kind, denomination_minor, source_format, source_width, source_height, created_at
    from design_media where design_id = ${designId} and kind = 'image' order by denomination_minor nulls first`;
}

export async function selectMedia(db: Queryable, mediaId: string): Promise<MediaRow | null> {
  const rows = await db<MediaRow[]>`
    select media_id, design_id, kind, denomination_minor, source_format, source_width, source_height, created_at
    from design_media where media_id = ${mediaId}`;
  return rows[0] ?? null;
}

/** A rendition's bytes; none once its design is deleted. */
export async function selectRendition(db: Queryable, mediaId: string, rendition: string): Promise<{ content_type: string; bytes: Buffer } | null> {
  const rows = await db<{ content_type: string; bytes: Buffer }[]>`
    select r.content_type, r.bytes from design_media_renditions r
    join design_media m on m.media_id = r.media_id
    join designs d on d.id = m.design_id and d.deleted_at is null
    where r.media_id = ${mediaId} and r.rendition = ${rendition}`;
  return rows[0] ?? null;
}
