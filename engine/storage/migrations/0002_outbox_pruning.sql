-- The outbox is pruned (engine/actors/outbox.ts, limits outboxDeliveredRetentionMs and
-- outboxRecordRetentionMs): delivered rows after a short retention, webhook deliveries and rows
-- parked as failed after a long one. Each pruning finds its rows by these indexes, oldest first.
create index outbox_delivered on outbox (delivered_at) where delivered_at is not null and kind <> 'webhook.deliver';
create index outbox_records on outbox ((coalesce(delivered_at, failed_at))) where kind = 'webhook.deliver' or failed_at is not null;
