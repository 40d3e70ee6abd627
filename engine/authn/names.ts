// Name rules shared by sign-up, invitations and change-name: a person's name starts with a
// letter, has no characters from U+2000 to U+2FFF, and is not a business name.
import { personNameCharsMax } from '../limits.ts';

const businessWords = /\b(inc|incorporated|llc|l\.l\.c|ltd|limited|corp|corporation|company|co|gmbh|plc|llp|lp|bank|foundation|association|holdings|enterprises|group|services|store|shop|restaurant|cafe)\b\.?/i;

/** A message for the first rule a person's name breaks, or null when it is acceptable. */
export function personNameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'is required';
  if ([...name].length > personNameCharsMax) return `must be at most ${personNameCharsMax} characters`;
  if (!/^\p{L}/u.test(name.trim())) return 'must start with a letter';
  if (/[\u2000-\u2fff]/u.test(name)) return 'contains characters that are not allowed';
  if (businessWords.test(name)) return 'must be a person\'s name, not a business name';
  return null;
}
