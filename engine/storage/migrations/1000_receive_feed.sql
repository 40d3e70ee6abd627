-- The receive feed (/wallet/receive-feed over the bidirectional API): a profile's receipts are its
-- completed transfers as recipient, newest first by end_at. Each receipt is also announced through
-- the outbox (kind 'feed.receipt', queued in the statement that completes the transfer); the relay
-- of a process with subscribers claims those rows often, so it reads them by this partial index.
create index transfers_receipts on transfers (recipient_id, end_at, id) where completed;
create index outbox_feed_due on outbox (id) where kind = 'feed.receipt' and delivered_at is null and failed_at is null;
