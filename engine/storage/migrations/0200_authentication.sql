-- Authentication: login guards, trusted devices, device passwords, invitation index, OAuth
-- codes and browser flows, profile image renditions. Attempts and invitations themselves are
-- actors (kinds authn_attempt and invitation) in the actors table.

-- Failed password guesses per login (or per profile for settings), within a window.
create table authn_login_guards (
  guard_key text primary key,
  failures integer not null check (failures >= 0),
  window_started_at timestamptz not null
);

-- A device trusted as a factor for 30 days (set-trust / trust30).
create table authn_trusted_devices (
  profile_id text not null,
  device_uuid text not null,
  trusted_until timestamptz not null,
  created_at timestamptz not null,
  primary key (profile_id, device_uuid)
);

-- Device-specific passwords (argon2 hashes only), one per device and access method.
create table authn_device_passwords (
  profile_id text not null,
  device_uuid text not null,
  access_method text not null check (access_method ~ '^[A-Za-z0-9_]{1,100}$'),
  password_hash text not null,
  created_at timestamptz not null,
  primary key (profile_id, device_uuid, access_method)
);

-- Lookup index for invitations: who sent them and which profile accepted them.
create table invitations (
  id text primary key,
  client_id text not null,
  ext_id text,
  accepted_profile_id text,
  created_at timestamptz not null,
  accepted_at timestamptz
);
create index invitations_accepted on invitations (accepted_profile_id, client_id) where accepted_profile_id is not null;

-- Browser authorization flows (/authorize pages): one row per visit, bound to a cookie.
create table oauth_flows (
  id text primary key,
  flow_hash text not null unique,
  client_id text not null,
  redirect_uri text not null,
  response_type text not null check (response_type in ('code', 'token')),
  scope text[] not null,
  state text,
  device_uuid text,
  device_name text,
  attempt_id text,
  profile_id text,
  step text not null check (step in ('signin', 'code', 'consent', 'done')),
  expires_at timestamptz not null,
  created_at timestamptz not null
);

-- Authorization codes: stored as hashes, short-lived and single use.
create table oauth_codes (
  id text primary key,
  code_hash text not null unique,
  client_id text not null,
  redirect_uri text not null,
  profile_id text not null,
  permissions text[] not null,
  device_uuid text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null
);

-- Square profile image renditions (24, 48, 73 px), served by GET /image/profile/<id>/<size>.
create table profile_images (
  profile_id text not null,
  size_px integer not null check (size_px in (24, 48, 73)),
  content_type text not null,
  bytes bytea not null,
  version integer not null check (version >= 1),
  updated_at timestamptz not null,
  primary key (profile_id, size_px)
);
