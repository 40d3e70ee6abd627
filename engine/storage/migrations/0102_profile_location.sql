-- A business's location in degrees, set by the operator; it sorts search results by distance and
-- is shown in the public Profile. numeric, not double precision: the wire carries decimal strings,
-- and numeric keeps exactly the six decimals we store (about 0.1 m), so a location reads back as
-- it was written, without float noise; distance queries cast to float8 where they compute.
-- Both set or both null, within range, and never on an individual. Each branch tests for null
-- itself, because a CHECK that evaluates to null passes.
alter table profiles
  add column latitude numeric(8, 6),
  add column longitude numeric(9, 6),
  add constraint profiles_location check (
    (latitude is null and longitude is null)
    or (latitude is not null and longitude is not null and not is_individual
      and latitude between -90 and 90 and longitude between -180 and 180));
