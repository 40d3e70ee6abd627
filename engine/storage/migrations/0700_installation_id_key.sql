-- Ids are a keyed permutation of sequences; the key is now per installation (created at first
-- start, see engine/storage/installation-store.ts). An installation that already issued ids keeps
-- the fixed key it used, so new ids never collide with old ones.
insert into installation_secrets (name, value, created_at)
select 'id_permutation_key', 'cashloop-id-permutation-v1', now()
where (select is_called from ids_short) or (select is_called from ids_long) or (select is_called from access_token_sequence)
on conflict (name) do nothing;
