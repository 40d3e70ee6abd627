// Named outcomes of invitation calls; api/routes/invitations.ts maps each once.
export type InvitationError = 'invalid' | 'invitation_gone' | 'not_sender';

export type InvitationFailure = { ok: false; error: InvitationError; invalid?: Record<string, string> };

/** The one way inviteIn refuses, inside another domain's command too: the addresses are not valid. */
export type InvitationInvalid = { ok: false; error: 'invalid'; invalid: Record<string, string> };
