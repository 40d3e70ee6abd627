-- The version of a profile's image renditions, bumped on each upload, so public profiles can
-- carry image URLs without another query. Null: no image.
alter table profiles add column image_version integer check (image_version >= 1);
