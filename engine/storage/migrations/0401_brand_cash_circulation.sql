-- Brand cash in circulation. A note of brand cash carries the open loop reserve that backs it
-- (minor units; 0 for unfunded loyalty cash) and the distribution plan it was sent under, so a
-- redemption settles per that plan. The reserve's open loop notes are held by the design
-- (holder_kind 'reserve', holder_id the design id). Expired brand cash leaves circulation as
-- holder_kind 'expired' and is counted in ledger_totals.expired.
alter table notes drop constraint notes_holder_kind_check;
alter table notes add constraint notes_holder_kind_check check (holder_kind in ('wallet', 'transfer', 'redeemed', 'reserve', 'expired'));
alter table notes add column reserve bigint not null default 0 check (reserve >= 0 and reserve <= amount);
alter table notes add column plan_id text;
create index notes_expiry on notes (loop_id, expires_at) where expires_at is not null and holder_kind in ('wallet', 'transfer');

alter table ledger_totals add column expired bigint not null default 0 check (expired >= 0);
alter table ledger_totals drop constraint ledger_totals_check;
alter table ledger_totals add constraint ledger_totals_check check (redeemed + expired <= issued);
