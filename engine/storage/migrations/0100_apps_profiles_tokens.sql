-- Apps, profiles (with UIDs, managers, features, devices) and access tokens.

create table apps (
  client_id text primary key check (client_id ~ '^[0-9]{10}$'),
  name text not null,
  secret_hash text not null,
  site text not null,
  permissions text[] not null default '{}',
  redirect_uris text[] not null default '{}',
  is_public boolean not null default false,
  implicit_grant boolean not null default false,
  created_at timestamptz not null
);

create table profiles (
  id text primary key check (id ~ '^[0-9]{10}$'),
  is_individual boolean not null,
  first_name text not null default '',
  last_name text not null default '',
  title text not null,
  business_name text,
  dba text,
  web_site text,
  description_html text,
  username text unique,
  site text not null,
  password_hash text,
  phone text not null default '',
  phone_public boolean not null default false,
  business_address jsonb,
  mail_address jsonb,
  home_address jsonb,
  preferred_currency text not null default '' check (preferred_currency = '' or preferred_currency ~ '^[A-Z]{3}$'),
  support_paycode boolean not null default false,
  accepted_policy boolean not null default false,
  weekly_offers boolean not null default true,
  created_at timestamptz not null
);
create index profiles_site on profiles (site);

-- One profile per UID; service: and username: UIDs are derived, never stored here.
create table profile_uids (
  uid text primary key,
  profile_id text not null references profiles (id),
  created_at timestamptz not null
);
create index profile_uids_profile on profile_uids (profile_id);

create table profile_managers (
  business_id text not null references profiles (id),
  manager_id text not null references profiles (id),
  created_at timestamptz not null,
  primary key (business_id, manager_id),
  check (business_id <> manager_id)
);
create index profile_managers_manager on profile_managers (manager_id);

create table profile_features (
  profile_id text not null references profiles (id),
  feature text not null,
  created_at timestamptz not null,
  primary key (profile_id, feature)
);

create table profile_devices (
  profile_id text not null references profiles (id),
  device_uuid text not null,
  device_name text,
  created_at timestamptz not null,
  primary key (profile_id, device_uuid)
);

create sequence access_token_sequence as bigint minvalue 0 start 0;

create table access_tokens (
  id text primary key,
  sequence bigint not null unique,
  token_hash text not null unique,
  client_id text not null references apps (client_id),
  profile_id text not null references profiles (id),
  personal_profile_id text not null references profiles (id),
  device_uuid text,
  -- select and /p/token tokens invalidate only older tokens of the same device.
  device_scoped boolean not null,
  permissions text[] not null,
  concurrent boolean not null,
  closed_loop_only boolean not null,
  source text not null check (source in ('oauth', 'authn', 'p_token', 'select', 'refresh', 'offer')),
  oauth_code_id text,
  issued_at timestamptz not null,
  soft_expires_at timestamptz not null,
  hard_expires_at timestamptz not null,
  first_used_at timestamptz,
  invalidated_at timestamptz,
  invalidated_reason text,
  refresh_failures integer not null default 0 check (refresh_failures >= 0),
  check (soft_expires_at <= hard_expires_at)
);
create index access_tokens_scope on access_tokens (client_id, profile_id, personal_profile_id, sequence) where invalidated_at is null;
create index access_tokens_personal on access_tokens (client_id, personal_profile_id) where invalidated_at is null;
create index access_tokens_oauth_code on access_tokens (oauth_code_id) where oauth_code_id is not null;
