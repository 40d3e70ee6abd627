-- Point of sale (issue 11): pull consent, settlement of redemptions, and the rows of the
-- received-and-receivable report. Amounts are bigint minor units of the row's currency.

-- A customer lets a merchant pull brand cash from its wallet (POST /wallet/pull-consent). Without
-- an unrevoked row a merchant's pull is refused before anything is read or locked.
create table pull_consents (
  customer_id text not null references profiles (id),
  merchant_id text not null references profiles (id),
  granted_at timestamptz not null,
  revoked_at timestamptz,
  primary key (customer_id, merchant_id)
);

-- What each redemption owes in open loop cash, one row per recipient of the plan's after-redemption
-- terms: 'funded' rows were paid at once from the design's reserve (movement `settle` without a
-- sender in the redemption transfer); 'pending' rows wait for a settler; 'settled' rows were paid
-- by a settler in the settle transfer named here. A pending row is a settlement actor.
create table settlements (
  id text primary key,
  redemption_transfer_id text not null references transfers (id),
  design_id text not null references designs (id),
  plan_id text,
  redeemer_id text not null,
  recipient_id text not null,
  -- 'redeemer': the redeemer's own settlement (its report row counts it); 'static': a plan's fee row.
  role text not null check (role in ('redeemer', 'static')),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  amount bigint not null check (amount > 0),
  state text not null check (state in ('funded', 'pending', 'settled')),
  settle_transfer_id text references transfers (id),
  created_at timestamptz not null,
  settled_at timestamptz,
  check ((state = 'settled') = (settle_transfer_id is not null))
);
create index settlements_pending on settlements (design_id, created_at, id) where state = 'pending';
create index settlements_redemption on settlements (redemption_transfer_id);

-- The received-and-receivable report's rows, written by the command that receives the payment and
-- kept current by the settle command. One row per payment part (transfer, loop, settlement type).
create table receivables (
  id bigserial primary key,
  profile_id text not null,
  at timestamptz not null,
  transfer_id text not null references transfers (id),
  pos_device_holder_id text,
  pos_device_id text,
  dist_tid text,
  settlement_type text not null check (settlement_type in ('init_dist', 'redeem', 'immediate', 'paycard', 'non_service')),
  received_currency text not null,
  settle_currency text not null,
  loop_id text not null,
  is_fundable boolean not null,
  tender_type text not null,
  received_amount bigint not null check (received_amount >= 0),
  settle_funded bigint not null default 0 check (settle_funded >= 0),
  settle_reclaimed bigint not null default 0 check (settle_reclaimed >= 0),
  settle_pending bigint not null default 0 check (settle_pending >= 0),
  settle_settled bigint not null default 0 check (settle_settled >= 0)
);
create index receivables_profile on receivables (profile_id, at, id);
create index receivables_transfer on receivables (transfer_id, profile_id, loop_id);
