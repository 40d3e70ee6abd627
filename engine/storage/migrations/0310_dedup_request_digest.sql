-- What a dedup key's first request asked for (sha256 of its canonical form: the kind of call and
-- every field that decides what moves), so a reused key with any other request answers 409
-- dedup_id_reused. Keys claimed before this column compare the first transfer's parties, currency
-- and amount, as they did.
alter table transfer_dedup add column request_digest text;
