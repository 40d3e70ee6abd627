-- Open loop cash in a wallet is one note per currency and issuer (issue 36; docs/decisions.md):
-- cash that arrives merges into it (engine/ledger/store.ts moveNotes, insertIssuedNote), so a
-- wallet's notes stay bounded however many payments it receives and a whole-balance send touches
-- one note. Existing wallets' open loop notes are merged here into the oldest of each group (its
-- serial number stays); amounts are summed, so every total the audit compares is
-- unchanged (open loop notes carry no reserve). Brand cash keeps its notes: their expiry, reserve
-- and plan are each note's own.
with groups as (
  select holder_id, currency, issuer_id, min(serial) as kept, sum(amount)::bigint as amount
  from notes where holder_kind = 'wallet' and loop_id = '0'
  group by holder_id, currency, issuer_id having count(*) > 1),
kept as (
  update notes n set amount = g.amount
  from groups g where n.serial = g.kept
  returning n.serial)
delete from notes n using groups g
where n.holder_kind = 'wallet' and n.loop_id = '0' and n.holder_id = g.holder_id and n.currency = g.currency
  and n.issuer_id = g.issuer_id and n.serial <> g.kept;

create unique index notes_open_loop_merged on notes (holder_id, currency, issuer_id) where holder_kind = 'wallet' and loop_id = '0';
