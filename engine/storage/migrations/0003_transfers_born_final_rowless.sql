-- A transfer born final (it waited for nothing) keeps no actor row (issue 36): its transfers row is
-- its persisted final state, and the command path restores its snapshot from that row when a
-- command loads it (engine/actors/command.ts, engine/transfers/changes.ts). The rows such transfers
-- kept before are deleted; transfers that waited keep theirs.
delete from actors where kind = 'transfer' and snapshot -> 'context' ->> 'waitFor' = 'none';
