-- max_per_wallet counts a wallet's own cash waiting in escrow (engine/designs/rules.ts): the notes
-- transfers hold, found by loop without reading every wallet's notes. Partial: only escrow rows.
create index notes_in_escrow_by_loop on notes (loop_id, currency, holder_id) where holder_kind = 'transfer';
