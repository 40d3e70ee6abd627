-- The cash ledger: notes (cash pages), wallet balances, transfers, per-profile transfer views,
-- movements, payment codes, dedup keys, bank (DFI) accounts, exchange rates and ledger settings.
-- Amounts are bigint minor units of the row's currency.

create sequence note_serials as bigint minvalue 1 start 1000001;

-- A note is a unit of cash with a serial number. It is held by a wallet, held in escrow by a
-- pending transfer, or redeemed (left the system through a bank deposit). Notes are never deleted;
-- a split reduces one note and creates another with parent_serial set, so totals never change.
create table notes (
  serial bigint primary key,
  holder_kind text not null check (holder_kind in ('wallet', 'transfer', 'redeemed')),
  holder_id text not null,
  loop_id text not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  issuer_id text not null,
  amount bigint not null check (amount > 0),
  expires_at timestamptz,
  parent_serial bigint,
  created_at timestamptz not null
);
create index notes_holder on notes (holder_kind, holder_id, currency, loop_id, serial);

-- Wallet balances per loop and currency, kept in the same transaction as the notes.
create table balances (
  profile_id text not null,
  loop_id text not null,
  currency text not null,
  amount bigint not null check (amount >= 0),
  primary key (profile_id, currency, loop_id)
);

-- Cash created (issued) and destroyed (redeemed: bank deposits) per loop and currency.
create table ledger_totals (
  loop_id text not null,
  currency text not null,
  issued bigint not null default 0 check (issued >= 0),
  redeemed bigint not null default 0 check (redeemed >= 0),
  primary key (loop_id, currency),
  check (redeemed <= issued)
);

create table transfers (
  id text primary key,
  workflow_type text not null,
  sender_id text,
  sender_uid text,
  recipient_id text,
  recipient_uid text,
  sender_personal_id text,
  recipient_personal_id text,
  currency text not null,
  amount bigint not null check (amount >= 0),
  start_at timestamptz not null,
  updated_at timestamptz not null,
  end_at timestamptz,
  next_activity text not null,
  completed boolean not null default false,
  canceled boolean not null default false,
  run_state text not null,
  activity_count integer not null default 0 check (activity_count >= 0),
  reason text,
  private boolean not null default true,
  message text,
  message_subject text,
  appdata jsonb not null default '{}'::jsonb,
  details jsonb not null default '{}'::jsonb,
  check (not (completed and canceled))
);
create index transfers_appdata on transfers using gin (appdata jsonb_path_ops);

-- One row per profile that sees a transfer: history and sync read only these, by keyset.
-- sync_ts changes on every change of the transfer, per profile.
create table transfer_views (
  profile_id text not null,
  transfer_id text not null references transfers (id),
  role text not null,
  start_at timestamptz not null,
  sync_ts timestamptz not null,
  primary key (profile_id, transfer_id)
);
create index transfer_views_start on transfer_views (profile_id, start_at, transfer_id);
create index transfer_views_sync on transfer_views (profile_id, sync_ts, transfer_id);

-- Movements of cash between profiles, numbered per transfer; one row per loops entry (line).
-- Written once, never changed.
create table movements (
  transfer_id text not null references transfers (id),
  number integer not null check (number >= 1),
  line integer not null check (line >= 1),
  at timestamptz not null,
  action text not null,
  from_id text,
  to_id text not null,
  loop_id text not null,
  currency text not null,
  issuer_id text not null,
  amount bigint not null check (amount > 0),
  primary key (transfer_id, number, line)
);

-- One transfer per sender and dedup id within the dedup window; the row is re-pointed only
-- once the window has passed.
create table transfer_dedup (
  sender_id text not null,
  dedup_id text not null,
  transfer_id text not null,
  created_at timestamptz not null,
  primary key (sender_id, dedup_id)
);

create table paycodes (
  code text not null,
  transfer_id text not null references transfers (id),
  sender_id text not null,
  recipient_id text not null,
  currency text not null,
  amount bigint not null check (amount > 0),
  received bigint not null default 0 check (received >= 0),
  created_at timestamptz not null,
  modified_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  state text not null check (state in ('active', 'used', 'ended')),
  primary key (transfer_id),
  check (received <= amount)
);
-- An active code is unique; used codes stay findable for the correction period.
create unique index paycodes_active_code on paycodes (code) where state <> 'ended';

create table dfi_accounts (
  id text primary key,
  profile_id text not null,
  registered boolean not null,
  rdfi_name text not null,
  routing_number text not null,
  account_number text not null,
  ach_type text not null check (ach_type in ('checking', 'savings')),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  alias text not null default '',
  holder_name text not null default '',
  created_at timestamptz not null
);
create index dfi_accounts_profile on dfi_accounts (profile_id, created_at) where registered;

-- Exchange rates for send-fx: dest units per source unit, as an exact decimal string.
create table fx_rates (
  source_currency text not null,
  dest_currency text not null,
  rate text not null check (rate ~ '^\d{1,12}(\.\d{1,12})?$'),
  updated_at timestamptz not null,
  primary key (source_currency, dest_currency)
);

create table ledger_settings (
  name text primary key,
  value text not null
);
