-- User permissions an app may request beyond the default send-and-receive set (issue 10): the
-- operator allows them per app (`cashloop app create --user-permissions ...`). The /aa/* start
-- calls' permissions and the authorize endpoint's scope grant what is requested and allowed.
alter table apps add column user_permissions text[] not null default '{}';
