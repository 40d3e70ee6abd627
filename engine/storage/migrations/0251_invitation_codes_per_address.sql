-- Each address of an invitation gets a code of its own, so a code proves at most the one address
-- its message went to. A keyed digest per address still finds the invitation from a code
-- (POST /wallet/accept-code); a re-send replaces only the digests of the addresses it goes to.
create table invitation_code_digests (
  digest text primary key,
  invitation_id text not null references invitations (id),
  uid text not null,
  unique (invitation_id, uid)
);

-- An invitation sent before this migration has one code for all its addresses: its digest still
-- finds it, under no address of its own ('*'), and that code no longer proves any address.
insert into invitation_code_digests (digest, invitation_id, uid)
  select code_digest, id, '*' from invitations where code_digest is not null;

alter table invitations drop column code_digest;
