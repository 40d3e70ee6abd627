-- How many transfers each profile sees (its rows of transfer_views, which history_sync pages through),
-- kept in the statement that inserts the views (engine/transfers/store.ts), so history_sync's
-- `remain` on a first page is this count less the views up to the page's end: exact without counting
-- a long history. Views are never deleted, so the count only grows.
create table transfer_view_counts (
  profile_id text primary key,
  views bigint not null check (views >= 0)
);

-- The views already written. Writers wait until this migration commits, so none is missed.
lock table transfer_views in share mode;
insert into transfer_view_counts (profile_id, views)
select profile_id, count(*) from transfer_views group by profile_id;
