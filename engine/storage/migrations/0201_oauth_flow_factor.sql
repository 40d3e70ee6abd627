-- The /authorize pages remember which factor the sign-in attempt is waiting for.
alter table oauth_flows add column factor_id text;
