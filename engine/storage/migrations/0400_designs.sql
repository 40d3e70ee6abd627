-- Brand cash: cash designs, explicit design grants, distribution plans and network agreements.
-- The design and agreement actors (engine/designs) keep their state in the actors table; these
-- rows hold their fields. A gl_design's id is the loop_id of its cash everywhere in the ledger.

create table designs (
  id text primary key check (id ~ '^[0-9]{10}$'),
  issuer_id text not null references profiles (id),
  design_type text not null check (design_type in ('gl_design', 'open_design', 'overlay_design')),
  title text not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  description_html text not null default '',
  multiple_images boolean not null default false,
  waves boolean not null default false,
  transferable boolean not null default true,
  -- Minor units of the design's currency; null means no limit.
  max_per_wallet bigint check (max_per_wallet is null or max_per_wallet > 0),
  designer_id text references profiles (id),
  featured_id text references profiles (id),
  expire_mode text check (expire_mode in ('absolute', 'relative')),
  expire_absolute timestamptz,
  expire_relative_days integer check (expire_relative_days is null or expire_relative_days > 0),
  email_freq text check (email_freq in ('daily', 'weekly', 'weekly2', 'monthly')),
  generic_provider boolean not null default false,
  icon_media_id text,
  icon_style text not null default 'zoom' check (icon_style in ('fit', 'zoom')),
  published_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check ((expire_mode is null) or (expire_mode = 'absolute' and expire_absolute is not null) or (expire_mode = 'relative' and expire_relative_days is not null))
);
create index designs_issuer on designs (issuer_id, created_at) where deleted_at is null;

-- Design permissions granted explicitly to a profile (the creator holds them all; agreement
-- members get view_design, settlers also view_design_network). GET /design lists designs with
-- an explicit view_design grant.
create table design_grants (
  design_id text not null references designs (id),
  profile_id text not null references profiles (id),
  permission text not null,
  created_at timestamptz not null,
  primary key (design_id, profile_id, permission)
);
create index design_grants_profile on design_grants (profile_id, permission, design_id);

-- recipients: [{percentage: decimal string, loop_id: '0' | design id, recipient_type:
-- 'discount' | 'static' | 'redeemer', recipient_id: profile id | '0'}].
create table distribution_plans (
  id text primary key check (id ~ '^[0-9]{10}$'),
  design_id text not null references designs (id),
  title text not null check (char_length(title) <= 50),
  recipients jsonb not null,
  deleted_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index distribution_plans_design on distribution_plans (design_id, created_at) where deleted_at is null;

create table agreements (
  id text primary key check (id ~ '^[0-9]{10}$'),
  design_id text not null references designs (id),
  member_id text not null references profiles (id),
  redeemer boolean not null default false,
  distributor boolean not null default false,
  settler boolean not null default false,
  terms_text text not null check (char_length(terms_text) <= 50),
  terms_link text,
  -- Mirrors the agreement actor's state for queries; the actor is the truth.
  state text not null check (state in ('inactive', 'active', 'deactivated', 'removed')),
  added_by text not null references profiles (id),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (redeemer or distributor or settler)
);
create index agreements_design on agreements (design_id, state);
create index agreements_member on agreements (member_id, state);
