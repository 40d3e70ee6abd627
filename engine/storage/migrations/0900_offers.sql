-- Offers: a business's promise of cash (its brand cash or open loop cash) to whoever accepts,
-- with a stock that can never be oversold (remaining only falls by a conditional update), full
-- text search (a generated tsvector under a GIN index) and a location for distance search
-- (a btree on latitude, longitude serves the bounding-box prefilter; haversine gives the exact
-- distance). The offer actor (engine/offers/machine.ts) keeps open/closed in the actors table;
-- state here mirrors it for queries.
create table offers (
  id text primary key check (id ~ '^[0-9]{10}$'),
  profile_id text not null references profiles (id),
  created_by text not null references profiles (id),
  -- null: open loop cash; else the gl_design whose brand cash pays out, under plan_id.
  design_id text references designs (id),
  plan_id text references distribution_plans (id),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- Minor units per unit of quantity.
  amount bigint not null check (amount > 0),
  title text not null check (char_length(title) between 1 and 100),
  description text not null default '',
  banner text,
  metadata_image text,
  metadata_description text not null default '',
  require_confirmation boolean not null default false,
  show_limit integer not null check (show_limit between 1 and 1000),
  quantity integer not null check (quantity >= 0),
  remaining integer not null check (remaining >= 0 and remaining <= quantity),
  -- [{option_id, payment_type: free | funded | paycard | service, price: minor units as a string}]
  options jsonb not null,
  chain_id text,
  latitude numeric(8, 6),
  longitude numeric(9, 6),
  starts_at timestamptz,
  expires_at timestamptz,
  state text not null check (state in ('open', 'closed')),
  search tsvector generated always as (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description || ' ' || metadata_description), 'B')
  ) stored,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check ((design_id is null) = (plan_id is null)),
  check ((latitude is null and longitude is null) or (latitude is not null and longitude is not null
    and latitude between -90 and 90 and longitude between -180 and 180))
);
create index offers_search on offers using gin (search) where state = 'open';
create index offers_location on offers (latitude, longitude) where state = 'open' and latitude is not null;
create index offers_profile on offers (profile_id, created_at);
create index offers_design on offers (design_id) where design_id is not null;

-- One row per accept. dedup_id is unique per accepter; a confirming accept waits for the link
-- in its email (confirm_digest: HMAC of the code, never the code) with its stock held.
create table offer_acceptances (
  id text primary key check (id ~ '^[0-9]{10}$'),
  offer_id text not null references offers (id),
  accepter_id text not null references profiles (id),
  option_id text not null,
  quantity integer not null check (quantity > 0),
  price bigint not null check (price >= 0),
  transfer_id text not null,
  referrer_id text references profiles (id),
  dedup_id text,
  email text,
  confirm_digest text unique,
  state text not null check (state in ('confirming', 'completed', 'canceled')),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index offer_acceptances_dedup on offer_acceptances (accepter_id, dedup_id) where dedup_id is not null;
create index offer_acceptances_offer on offer_acceptances (offer_id, created_at);
