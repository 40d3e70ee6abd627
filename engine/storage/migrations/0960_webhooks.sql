-- Webhooks: a profile's handler URLs. Every change of a transfer the profile is a stakeholder in
-- (matching the optional filters) queues one outbox row per webhook, in the same statement that
-- writes the change (engine/transfers/store.ts); the row's id is the delivery id. The signing
-- secret is kept because every delivery is signed with it; after a rotation the previous secret
-- also signs until previous_secret_until.
create table webhooks (
  id text primary key,
  profile_id text not null references profiles (id),
  url text not null,
  workflow_types text[],
  states text[] check (states <@ array['pending', 'completed', 'canceled']::text[]),
  secret text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  created_at timestamptz not null,
  rotated_at timestamptz
);
create index webhooks_profile on webhooks (profile_id, created_at);
-- A webhook's deliveries, newest first (GET /p/<id>/webhook/<webhook_id>/deliveries).
create index outbox_webhook_deliveries on outbox ((payload ->> 'webhook_id'), id) where kind = 'webhook.deliver';
