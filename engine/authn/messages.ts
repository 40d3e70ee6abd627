// Texts of authentication messages that carry no code. authn-add-conflict goes to the owner of an
// address that someone tried to add to another wallet (supplement 6.4); the caller of add-uid is
// answered as if a code had been sent, so add-uid cannot tell whether an address has a wallet.

export function addConflictMessage(channel: 'email' | 'sms'): { subject: string; text: string } {
  const text =
    channel === 'sms'
      ? 'Cashloop: someone tried to add this number to another wallet. It stays with yours; nothing changed.'
      : 'Someone tried to add this address to another Cashloop wallet. It already belongs to your wallet, so nothing changed and no code was sent.\n\n' +
        'If it was you and you want to move the address, remove it from this wallet first. Otherwise you need not do anything.';
  return { subject: 'Someone tried to add your address to another wallet', text };
}
