-- Failed token refreshes are counted per personal profile and app, not per token: a token selected
-- with /token/select/<own id> starts no fresh count (issue 8, hole 2).
create table token_refresh_guards (
  personal_profile_id text not null,
  client_id text not null,
  failures integer not null check (failures >= 0),
  updated_at timestamptz not null,
  primary key (personal_profile_id, client_id)
);
