// The operations of api/routes/invitations.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { invitationErrors } from '../routes/invitations.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const invitationDocs: OperationDocs = {
  postInvitationInvite: {
    description:
      "A server app invites a person by email and/or phone; the message carries a code and a link built from url_template (INVITE_ID, CODE, DELIVERY_ID and EXT_ID are filled in), and the sender and organization names and images it is given. Throttled per address, app and client address. Answers the invitation with its id.",
    example: { first_name: 'Sam', last_name: 'Lee', url_template: 'https://app.example.com/join?invite=INVITE_ID&code=CODE', sender_name: 'Corner Coffee', email: 'sam@example.com' },
    errors: [],
  },
  getInvitationByInviteId: {
    description:
      "The invitation as its recipient may read it: who invited them, to what, and whether it is still open. No credentials: the id is the secret.",
    example: { inviteId: 'inv1234567890' },
    errors: [...pick(invitationErrors, 'invitation_gone')],
  },
  postInvitationReinvite: {
    description:
      "Re-sends the invitation with a new code, to the address given or to every address it was sent to before. Only the inviting app may. Throttled.",
    example: { inviteId: 'inv1234567890' },
    errors: [...pick(invitationErrors, 'invitation_gone', 'not_sender')],
  },
  postInvitationExpire: {
    description:
      "Expires the invitation at once, without sending any message; its code and link stop working. Only the inviting app may.",
    example: { inviteId: 'inv1234567890' },
    errors: [...pick(invitationErrors, 'invitation_gone', 'not_sender')],
  },
  getWalletFinishInvite: {
    description:
      "What GET /wallet/info answers, plus the invite_id and ext_id of the invitation this wallet accepted, so the inviting app can link its records; the invitation is expired by the call (repeatable).",
    example: {},
    errors: [],
  },
};
