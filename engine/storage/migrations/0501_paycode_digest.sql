-- Payment codes are no longer stored in clear (issue 8, hole 7): a keyed digest (HMAC-SHA256 under a
-- per-installation key) finds a code and is unique among live codes; the code itself is kept only
-- sealed (AES-256-GCM under another per-installation key), for the sender's own TransferDetail.
-- Rows written before this migration keep their clear code and are found by it until they end.
alter table paycodes alter column code drop not null;
alter table paycodes add column code_digest text;
alter table paycodes add column code_sealed text;
create unique index paycodes_active_digest on paycodes (code_digest) where state <> 'ended' and code_digest is not null;
