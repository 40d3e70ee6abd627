-- Paycards: payment cards linked to wallets. The full card number is never stored: the simulated
-- card network answers a token (an HMAC of the number under a per-installation key, so a number is
-- linked once per wallet) and the last four digits. PINs are kept only as argon2 hashes. The card's
-- state (active, suspended, deleted) is its actor's; this row mirrors it for queries.
create table paycards (
  card_id text primary key check (card_id ~ '^[0-9a-f]{16}$'),
  profile_id text not null references profiles (id),
  network_token text not null,
  last4 text not null check (last4 ~ '^[0-9]{4}$'),
  pan_length integer not null check (pan_length between 12 and 19),
  expiration text not null check (expiration ~ '^[0-9]{4}-[0-9]{2}$'),
  pin_hash text not null,
  state text not null check (state in ('active', 'suspended', 'deleted')),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index paycards_live_token on paycards (profile_id, network_token) where state <> 'deleted';
create index paycards_profile on paycards (profile_id, created_at) where state <> 'deleted';
