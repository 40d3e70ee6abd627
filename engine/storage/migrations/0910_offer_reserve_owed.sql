-- An offer made or edited by a closed-loop token (POST /p/token) commits no open loop cash: its
-- accepts distribute brand cash with the reserve left owed, as that token's design sends do
-- (docs/decisions.md), settled at redemption by a settler.
alter table offers add column reserve_owed boolean not null default false;
