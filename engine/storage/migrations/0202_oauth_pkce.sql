-- PKCE (RFC 7636, S256 only): the challenge of an /authorize request travels from its flow to its
-- code and is checked against the code_verifier at POST /token.
alter table oauth_flows add column code_challenge text;
alter table oauth_codes add column code_challenge text;
