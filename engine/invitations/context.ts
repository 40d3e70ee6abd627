// What every invitations operation works with: the core, the messages service, whether codes are
// revealed (sandbox), and the code-digest key, read from the database once and then held here.
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';

export interface InvitationsContext {
  core: Core;
  messages: MessagesService;
  sandbox: boolean;
  digestKey: string | null;
}
