-- Design images and icons (PUT /design/<id>/image, /image/<denomination>, /icon). Each upload is
-- one media row with an opaque id; its renditions' bytes live here and are served by
-- GET /media/design/<media_id>/<rendition>. A new upload replaces the slot's media (new id), so a
-- rendition never changes under its URL and may be cached for good.

create table design_media (
  media_id text primary key check (media_id ~ '^[0-9a-f]{20}$'),
  design_id text not null references designs (id),
  kind text not null check (kind in ('image', 'icon')),
  -- An image for one denomination (minor units of the design's currency); null for the design's
  -- own image and for icons.
  denomination_minor bigint check (denomination_minor is null or denomination_minor > 0),
  source_format text not null check (source_format in ('png', 'jpeg', 'gif')),
  source_width integer not null check (source_width > 0),
  source_height integer not null check (source_height > 0),
  created_at timestamptz not null,
  check (kind = 'image' or denomination_minor is null)
);
-- One image per slot (the design's own, or one denomination).
create unique index design_media_image_slot on design_media (design_id, coalesce(denomination_minor, 0)) where kind = 'image';
create index design_media_design on design_media (design_id, kind);

create table design_media_renditions (
  media_id text not null references design_media (media_id) on delete cascade,
  rendition text not null check (rendition in ('full', 'thumbnail', 'full_zoom', 'full_fit', 'thumbnail_zoom', 'thumbnail_fit')),
  content_type text not null check (content_type in ('image/png', 'image/jpeg')),
  width integer not null check (width > 0),
  height integer not null check (height > 0),
  bytes bytea not null,
  primary key (media_id, rendition)
);
