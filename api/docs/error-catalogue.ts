// The error catalogue: every named error of every table, with its status, its wire `error` and its
// meaning. docs/errors.md is this text (tools/write-error-catalogue.ts writes it; a test compares).
import { edgeErrors, type ErrorMapping } from '../http/errors.ts';
import { adminErrors } from '../routes/admin.ts';
import { authnErrors } from '../routes/authn.ts';
import { designErrors } from '../routes/designs.ts';
import { fundProxyErrors } from '../routes/fundproxy.ts';
import { invitationErrors } from '../routes/invitations.ts';
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { tokenEndpointErrors } from '../routes/oauth.ts';
import { offerErrors } from '../routes/offers.ts';
import { paycardErrors } from '../routes/paycards.ts';
import { posErrors } from '../routes/pos-errors.ts';
import { profileErrors } from '../routes/profiles.ts';
import { tokenErrors } from '../routes/tokens.ts';
import { webhookErrors } from '../routes/webhooks.ts';

/** Every error table, by the part of the service it belongs to. */
export const errorTables: Record<string, Record<string, ErrorMapping>> = {
  'the edge (every call)': edgeErrors,
  authentication: authnErrors,
  invitations: invitationErrors,
  tokens: tokenErrors,
  'the OAuth token endpoint': tokenEndpointErrors,
  'profile access': profileErrors,
  'operator (admin)': adminErrors,
  'ledger and transfers': ledgerErrors,
  designs: designErrors,
  'point of sale (pull, processor, settlement, report)': posErrors,
  'payment cards': paycardErrors,
  offers: offerErrors,
  webhooks: webhookErrors,
  'fund proxies': fundProxyErrors,
};

const escape = (text: string) => text.replaceAll('|', '\\|');

export function errorCatalogue(): string {
  const lines = [
    '# Error catalogue',
    '',
    '<!-- Generated from the error tables of api/ by `node --import tsx tools/write-error-catalogue.ts`; test/openapi-complete.test.ts fails when it differs. -->',
    '',
    'Every error answer has the body `{ "error": "<code>", "error_description": "<text>" }`, plus `invalid` (the fields at fault),',
    '`token_error` (which credential problem) or `send_errors` (why cash could not move) where they apply. `error` is the',
    'wire code below; one wire code can stand for several named errors of the code, whose meanings are listed apart.',
    'A 400 answer turns into 200 when the request carries `__error_ok__` (clients that cannot read error bodies).',
    'Each operation of the OpenAPI document (`/openapi.json`, readable at `/docs`) lists the codes its statuses may carry.',
    '',
  ];
  for (const [part, table] of Object.entries(errorTables)) {
    lines.push(`## ${part[0].toUpperCase()}${part.slice(1)}`, '', '| status | error | token_error | meaning | name in the code |', '|---|---|---|---|---|');
    const entries = Object.entries(table).filter(([code, mapping]) => part === 'the edge (every call)' || mapping !== edgeErrors[code as keyof typeof edgeErrors]);
    entries.sort(([left, a], [right, b]) => a.status - b.status || left.localeCompare(right));
    for (const [code, mapping] of entries) {
      lines.push(`| ${mapping.status} | \`${mapping.error ?? code}\` | ${mapping.fields?.token_error ? `\`${mapping.fields.token_error}\`` : ''} | ${escape(mapping.description)} | ${code} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
