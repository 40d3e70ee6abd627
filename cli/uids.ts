// The CLI's one UID parser: every command that names a profile (an argument or an option) turns
// what was typed into the profile's id here. The server reads the text with the same rule its
// own UID fields use (canonicalUidOf: service:<id> or a bare id, email:, phone:, username:, or a
// bare email or +phone), so the CLI takes exactly the forms the API takes; and a UID that names
// no profile stops the command before it changes anything.
import { CliError, type OperatorApi } from './client.ts';

export const uidFormsHelp = 'A UID is one of: service:<id> or the bare 10-digit id; email:<address> or the address; phone:<number> or +<E.164 number>; username:<name>.';

/** The admin view of the profile `text` names; `what` says where it was typed (`--to`, `<profile>`). */
export async function showProfile(api: OperatorApi, text: string, what: string) {
  const trimmed = text.trim();
  if (trimmed === '') throw new CliError(`${what} is empty. ${uidFormsHelp}`, 'invalid_uid');
  try {
    return await api.call(api.client.GET('/admin/profiles/{profileId}', { params: { path: { profileId: trimmed } } }));
  } catch (error) {
    if (error instanceof CliError && error.details.status === 404) throw new CliError(`${what} ${trimmed}: no profile has this UID. ${uidFormsHelp}`, 'profile_not_found', error.details);
    throw error;
  }
}

/** The id of the profile `text` names. */
export async function profileIdOf(api: OperatorApi, text: string, what: string): Promise<string> {
  return (await showProfile(api, text, what)).profile.id;
}

/** `service:<id>` of the profile `text` names, for a body field that takes a UID. */
export async function serviceUidOf(api: OperatorApi, text: string, what: string): Promise<string> {
  return `service:${await profileIdOf(api, text, what)}`;
}
