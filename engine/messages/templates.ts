// Message texts, named after the site message set (authn-signup-existent, transfer-invitation …).
// Codes appear only in message bodies, never in subjects, log lines or file names.

export type CodeTemplate =
  | 'authn-signup-nonexistent'
  | 'authn-signup-existent'
  | 'authn-signin-existent'
  | 'authn-signin-nonexistent'
  | 'authn-reset-existent'
  | 'authn-reset-nonexistent'
  | 'authn-invite-nonexistent'
  | 'authn-invite-existent'
  | 'authn-add-ok';

const purposes: Record<CodeTemplate, string> = {
  'authn-signup-nonexistent': 'to create your wallet',
  'authn-signup-existent': 'to sign in to the wallet you already have',
  'authn-signin-existent': 'to sign in to your wallet',
  'authn-signin-nonexistent': '',
  'authn-reset-existent': 'to reset your wallet password',
  'authn-reset-nonexistent': '',
  'authn-invite-nonexistent': 'to accept your invitation',
  'authn-invite-existent': 'to accept your invitation',
  'authn-add-ok': 'to add this address to your wallet',
};

/** Groups a code for reading: 123-456 or 123-456-789. */
export function formatCode(code: string): string {
  return code.match(/.{1,3}/g)?.join('-') ?? code;
}

export function codeMessage(template: CodeTemplate, code: string | null, channel: 'email' | 'sms'): { subject: string; text: string } {
  if (code === null) {
    const text = 'Someone tried to use this address with Cashloop, but no wallet uses it. If it was you, sign up instead. Otherwise ignore this message.';
    return { subject: 'Cashloop sign-in attempt', text };
  }
  const text =
    channel === 'sms'
      ? `Cashloop code ${formatCode(code)} ${purposes[template]}. Do not share it.`
      : `Your Cashloop code ${purposes[template]} is ${formatCode(code)}.\n\nIt expires in 30 minutes. Never share it with anyone.`;
  return { subject: 'Your Cashloop code', text };
}

export function invitationMessage(input: { senderName: string; orgName: string | null; firstName: string; url: string; code: string; channel: 'email' | 'sms' }): { subject: string; text: string } {
  const from = input.orgName ? `${input.senderName} (${input.orgName})` : input.senderName;
  const text =
    input.channel === 'sms'
      ? `${from} invited you to Cashloop: ${input.url} code ${input.code}`
      : `Hello ${input.firstName},\n\n${from} invited you to a Cashloop wallet.\n\nOpen ${input.url}\nYour invitation code: ${input.code}\n`;
  return { subject: `${from} invited you to Cashloop`, text };
}

/** authn-add-conflict: to the owner of an address someone tried to add to another wallet; it carries no code. */
export function addConflictMessage(channel: 'email' | 'sms'): { subject: string; text: string } {
  const text =
    channel === 'sms'
      ? 'Cashloop: someone tried to add this number to another wallet. It stays with yours; nothing changed.'
      : 'Someone tried to add this address to another Cashloop wallet. It already belongs to your wallet, so nothing changed and no code was sent.\n\n' +
        'If it was you and you want to move the address, remove it from this wallet first. Otherwise you need not do anything.';
  return { subject: 'Someone tried to add your address to another wallet', text };
}

/** agreement-added: tells a profile it was named in a cash network agreement, and what to do next. */
export function agreementMessage(input: { ownerTitle: string; designTitle: string; roles: string[]; termsText: string; active: boolean }): { subject: string; text: string } {
  const roles = input.roles.join(', ');
  const next = input.active
    ? 'The agreement is active.'
    : 'It takes effect only when you activate it (POST /design/<design id>/agreement/<agreement id>/activate), after you formally agree to its terms.';
  return {
    subject: `${input.ownerTitle} added you to the cash network of ${input.designTitle}`,
    text: `${input.ownerTitle} named you as ${roles} of ${input.designTitle} brand cash.\n\nTerms: ${input.termsText}\n\n${next}\n`,
  };
}

export function billMessage(input: { merchantTitle: string; designTitle: string; amount: string; currency: string; transferId: string; reminder: number }): { subject: string; text: string } {
  const again = input.reminder > 0 ? `Reminder ${input.reminder}: ` : '';
  return {
    subject: `${again}${input.merchantTitle} sent you a bill for ${input.amount} ${input.currency}`,
    text:
      `${input.merchantTitle} billed you ${input.amount} ${input.currency} for ${input.designTitle} brand cash (transfer ${input.transferId}).\n\n` +
      `Pay it from your wallet (POST /t/${input.transferId}/accept), or, if you paid another way, confirm it (POST /t/${input.transferId}/confirm-bill) and these reminders stop.\n`,
  };
}

export function brandCashReminder(input: { designTitle: string; amount: string; currency: string; expiresAt: string | null; lastWeek: boolean }): { subject: string; text: string } {
  const expiry = input.expiresAt ? ` Part of it expires on ${input.expiresAt.slice(0, 10)}.` : '';
  return {
    subject: input.lastWeek ? `Your ${input.designTitle} cash expires soon` : `You hold ${input.amount} ${input.currency} of ${input.designTitle} cash`,
    text: `Your wallet holds ${input.amount} ${input.currency} of ${input.designTitle} brand cash.${expiry}\n`,
  };
}
