-- History and sync of a transfer's sender and recipient read indexed columns of transfers (issue 36):
-- `sender_sees` / `recipient_sees` say the sender_id / recipient_id profile sees the transfer (in the
-- role 'sender' / 'recipient'), its sync_ts being the transfer's updated_at (every change set both to
-- the same time) and its start the transfer's start_at. transfer_views keeps only the other viewers
-- (third parties: a fee recipient, a fund proxy's distributor, a viewer added in another role), so a
-- P2P send writes no view row. `remain` counts from these indexes, bounded (engine/transfers/store.ts),
-- so the per-profile count of views (migration 1040) is no longer kept.
alter table transfers add column sender_sees boolean not null default false,
  add column recipient_sees boolean not null default false;

-- The views already written: writers wait until this migration commits, so none is missed. A view
-- moves to the flags only when the transfer's columns answer exactly as it did (same start and sync_ts).
lock table transfer_views in exclusive mode;
update transfers t set sender_sees = exists (select 1 from transfer_views v where v.transfer_id = t.id and v.profile_id = t.sender_id
      and v.role = 'sender' and v.start_at = t.start_at and v.sync_ts = t.updated_at),
    recipient_sees = exists (select 1 from transfer_views v where v.transfer_id = t.id and v.profile_id = t.recipient_id
      and v.role = 'recipient' and v.start_at = t.start_at and v.sync_ts = t.updated_at)
  where exists (select 1 from transfer_views v where v.transfer_id = t.id and v.role in ('sender', 'recipient')
      and v.profile_id in (t.sender_id, t.recipient_id));
delete from transfer_views v using transfers t
  where t.id = v.transfer_id
    and ((t.sender_sees and v.profile_id = t.sender_id and v.role = 'sender') or (t.recipient_sees and v.profile_id = t.recipient_id and v.role = 'recipient'));

-- One view per profile and transfer, as transfer_views' primary key kept it.
alter table transfers add constraint transfers_one_party_view check (not (sender_sees and recipient_sees and sender_id = recipient_id));
create index transfers_sender_sync on transfers (sender_id, updated_at, id) where sender_sees;
create index transfers_recipient_sync on transfers (recipient_id, updated_at, id) where recipient_sees;
create index transfers_sender_start on transfers (sender_id, start_at, id) where sender_sees;
create index transfers_recipient_start on transfers (recipient_id, start_at, id) where recipient_sees;
drop table transfer_view_counts;
