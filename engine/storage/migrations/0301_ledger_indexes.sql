-- Expiring cash in ProfileDetail.holdings reads only a wallet's notes that expire, not all its notes.
create index notes_expiring on notes (holder_id, expires_at) where holder_kind = 'wallet' and expires_at is not null;
