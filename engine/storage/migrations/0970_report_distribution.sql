-- The received-and-receivable report's dist_tid: every note of brand cash remembers the transfer
-- that distributed it (a design send, a bill paid, an offer accepted), and parts split off a note
-- keep it. A redemption writes one report row (and one settlement row per plan row) for each
-- distribution its notes came from, so the settle command finds the row it moves from pending.
-- Notes distributed before this migration have none (null).
alter table notes add column dist_transfer_id text;
alter table settlements add column dist_tid text;
