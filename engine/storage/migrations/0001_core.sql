-- Core engine tables: actor snapshots, durable timers, the outbox, and id sequences.
-- Migration numbers by domain: 0001-0099 core, 0100-0199 apps/profiles/tokens,
-- 0200-0299 authentication/invitations/messages, 0300-0399 ledger/transfers.

create table actors (
  kind text not null,
  id text not null,
  version integer not null check (version >= 1),
  state text not null,
  snapshot jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (kind, id)
);

create table timers (
  id bigserial primary key,
  actor_kind text not null,
  actor_id text not null,
  name text not null,
  event jsonb not null,
  due_at timestamptz not null,
  unique (actor_kind, actor_id, name)
);
create index timers_due_at on timers (due_at);

create table outbox (
  id bigserial primary key,
  kind text not null,
  payload jsonb not null,
  created_at timestamptz not null,
  attempts integer not null default 0 check (attempts >= 0),
  next_attempt_at timestamptz not null,
  lease_until timestamptz,
  delivered_at timestamptz,
  failed_at timestamptz,
  last_error text
);
create index outbox_pending on outbox (next_attempt_at) where delivered_at is null and failed_at is null;

create sequence ids_short as bigint minvalue 0 start 0;
create sequence ids_long as bigint minvalue 0 start 0;
