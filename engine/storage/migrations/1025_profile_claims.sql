-- A UID someone typed for a new profile without proving it (a bill's profile_creation_data.email):
-- a claim on that profile, not a confirmed UID. The owner who proves the UID by a code when signing
-- up on the profile's site takes the profile over, and the claim is gone. One claim per UID and site.
create table profile_claims (
  profile_id text primary key references profiles (id),
  site text not null,
  uid text not null,
  created_at timestamptz not null,
  unique (site, uid)
);
