// Sending an invitation: a message per address with the link built from url_template and the code;
// in the sandbox the codes come back to the caller instead of staying secret.
import type { Unit } from '../actors/command.ts';
import { randomHex } from '../ids.ts';
import { invitationMessage } from '../messages/templates.ts';
import { displayInvitationCode } from './codes.ts';
import type { InvitationsContext } from './context.ts';
import type { InvitationAddress, InvitationContext } from './machine.ts';

function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/INVITE_ID|CODE|DELIVERY_ID|EXT_ID/g, (name) => encodeURIComponent(values[name] ?? ''));
}

/** Sends the invitation message to each address with the code of its own; returns the sandbox reveals. */
export function deliver(
  ctx: InvitationsContext, unit: Unit, inviteId: string, context: Pick<InvitationContext, 'firstName' | 'senderName' | 'orgName' | 'urlTemplate' | 'extId'>,
  sent: readonly { address: InvitationAddress; code: string }[],
): string[] {
  const revealed: string[] = [];
  for (const { address, code } of sent) {
    const channel = address.uid.startsWith('email:') ? 'email' : 'sms';
    const deliveryId = randomHex(4);
    const url = fillTemplate(context.urlTemplate, { INVITE_ID: inviteId, CODE: code, DELIVERY_ID: deliveryId, EXT_ID: context.extId ?? '' });
    const content = invitationMessage({ senderName: context.senderName, orgName: context.orgName, firstName: context.firstName, url, code: displayInvitationCode(code), channel });
    ctx.messages.queue(unit, { channel, to: address.uid.slice(address.uid.indexOf(':') + 1), template: 'invitation', ...content });
    if (ctx.sandbox) revealed.push(`${code} => ${address.uid}`);
  }
  return revealed;
}
