-- An offer's accept keeps its dedup_id in the acceptance, a fund proxy's deposit its trace number in
-- the deposit; like transfer_dedup (0310), each now keeps the digest of the request that claimed the
-- key, so the one wrapper (engine/transfers/gate.ts: onceByKey) compares a repeat the same way for
-- every path. Keys claimed before compare as they did: an acceptance's offer, option, quantity and
-- referrer; a deposit's amount and currency.
alter table offer_acceptances add column request_digest text;
alter table fund_proxy_deposits add column request_digest text;
