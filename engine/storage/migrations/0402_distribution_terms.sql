-- Terms fixed at distribution (issue 21). Each distribution of a design's brand cash (a design
-- send, a bill's payment, an offer's payout: its transfer is the notes' dist_transfer_id) keeps
-- the plan's rows it was sold under, so a redemption settles by them even after the plan is edited
-- or deleted. reserve_funded is the open loop cash paid into the reserve at distribution;
-- reserve_owed is what a closed-loop token's send left unfunded: its redemptions are owed to
-- redeemers as pending settlement until a settler pays them (docs/decisions.md).
create table distribution_terms (
  dist_transfer_id text not null,
  design_id text not null references designs (id),
  plan_id text not null,
  recipients jsonb not null,
  distributor_id text not null references profiles (id),
  currency text not null,
  amount bigint not null check (amount > 0),
  reserve_funded bigint not null check (reserve_funded >= 0),
  reserve_owed bigint not null check (reserve_owed >= 0),
  created_at timestamptz not null,
  primary key (dist_transfer_id, design_id)
);
create index distribution_terms_design on distribution_terms (design_id, created_at);
