-- Invitation codes can be entered in a wallet (POST /wallet/accept-code): a keyed digest of the
-- current code finds its invitation (the code itself is kept only as a slow hash in the actor).
alter table invitations add column code_digest text;
create unique index invitations_code_digest on invitations (code_digest) where code_digest is not null;

-- Per-installation secrets created on first use (HMAC keys for lookup digests).
create table installation_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null
);
