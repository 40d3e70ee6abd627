-- A transfer's viewers by transfer id: stakeholders of GET /t/<id> and the sync_ts update of every
-- change read this instead of scanning every profile's views.
create index transfer_views_transfer on transfer_views (transfer_id);
