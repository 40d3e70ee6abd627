-- ACH funding proxies (POST /fundproxy/get-ach): an account number at the service's bank whose
-- incoming ACH money is issued as open loop cash by the issuer, passed through the distributor
-- when one is named, and lands in the recipient's wallet with the proxy's appdata. get-ach is
-- idempotent: the same app, routing number, parties and appdata answer the same proxy.
create table fund_proxies (
  id text primary key,
  app_id text not null,
  routing_number text not null check (routing_number ~ '^[0-9]{9}$'),
  account_number text not null unique check (account_number ~ '^[0-9]{12}$'),
  issuer_id text not null references profiles (id),
  distributor_id text references profiles (id),
  recipient_id text not null references profiles (id),
  appdata jsonb not null,
  created_at timestamptz not null
);
create unique index fund_proxies_same_request on fund_proxies (app_id, routing_number, issuer_id, coalesce(distributor_id, ''), recipient_id, appdata);

-- Money that arrived through a proxy, one row per ACH trace number: a repeated deposit (the same
-- trace number) answers the first transfer and issues nothing.
create table fund_proxy_deposits (
  proxy_id text not null references fund_proxies (id),
  trace_number text not null,
  transfer_id text not null references transfers (id),
  primary key (proxy_id, trace_number)
);
