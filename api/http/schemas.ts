// Response shapes shared by several routes (supplement §2 and §7). Each route declares its 200
// answer with these (RouteDefinition.response); the OpenAPI document takes them from here, and
// with CASHLOOP_CHECK_RESPONSES on (the test harness) every answer is checked against its schema.
// Objects are strict: a field a handler adds without declaring it here fails the check.
import { z } from 'zod';

/** A shared schema with an id: it becomes a components/schemas entry (a $ref each) in the OpenAPI document. */
function component<Schema extends z.ZodType>(id: string, schema: Schema, description?: string): Schema {
  return schema.meta(description ? { id, description } : { id }) as Schema;
}

const nullableString = z.string().nullable();
const timestamp = z.string().describe('ISO 8601 timestamp');
const decimal = z.string().describe('decimal amount');

/** The error body of every 4xx/5xx JSON answer (supplement 7.1-7.3; InvalidRequest). */
export const errorBody = component(
  'Error',
  z.looseObject({
    error: z.string().describe('error code: invalid, invalid_token, not_found, ...'),
    error_description: z.string().describe('ASCII text for developers'),
    invalid: z.record(z.string(), z.string()).optional().describe('field name -> problem'),
    token_error: z.string().optional().describe('with error invalid_token: why the credential was refused'),
    send_errors: z.array(z.looseObject({ code: z.string(), field_name: z.string().optional(), info: z.looseObject({}).optional() })).optional(),
  }),
  'InvalidRequest: the body of every error answer. __error_ok__ turns a 400 into a 200 with this body.',
);

export const emptyResponse = z.strictObject({});

export const accessTokenInfo = component(
  'AccessTokenInfo',
  z.strictObject({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().describe('seconds until soft expiration'),
    hard_expires_in: z.number().int().describe('seconds until hard expiration'),
    scope: z.string().describe('space-delimited permissions granted'),
  }),
);

export const oauthServerMetadata = component(
  'OAuthServerMetadata',
  z.strictObject({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
  }),
  'RFC 8414 authorization server metadata.',
);

const imageUrl = nullableString;
export const profile = component(
  'Profile',
  z.strictObject({
    id: z.string(),
    title: z.string(),
    username: nullableString,
    is_individual: z.boolean(),
    first_name: nullableString,
    last_name: nullableString,
    url: z.string(),
    service_uid: z.string(),
    image24: imageUrl,
    image25: imageUrl.describe('deprecated alias of image24'),
    image48: imageUrl,
    image50: imageUrl.describe('deprecated alias of image48'),
    image73: imageUrl,
    image125: imageUrl,
    image250w: imageUrl,
    address: z.string(),
    address_data: z.looseObject({}).nullable(),
    latitude: z.union([z.string(), z.number()]).describe('"" when unknown'),
    longitude: z.union([z.string(), z.number()]).describe('"" when unknown'),
    phone: nullableString,
    preferred_currency: z.string(),
    accepted_national_currencies: z.array(z.string()),
    unsupported_national_currencies: z.array(z.string()),
    chain_id: nullableString,
    support_paycode: z.boolean(),
  }),
);

export const meProfile = component(
  'MeProfile',
  profile.extend({
    display_name: z.string().describe('legacy alias of title, read by old OAuth clients'),
    photo50: imageUrl.describe('legacy alias of image48, read by old OAuth clients'),
  }),
  'GET /me: the public Profile with two legacy aliases.',
);

export const confirmedUids = z.array(z.strictObject({ uid: z.string() }));

export const holding = component(
  'Holding',
  z.strictObject({
    loop_id: z.string(),
    currency: z.string(),
    /** Brand cash only: the design's title and its image thumbnail (LoopDescription). */
    title: z.string().optional(),
    thumbnail: z.string().nullable().optional(),
    amount: decimal,
    expiring: z.array(z.strictObject({ amount: decimal, expire_time: timestamp })),
  }),
);

export const dfiAccount = component(
  'DFIAccount',
  z.strictObject({ id: z.string(), redacted_account_num: z.string(), rdfi_name: z.string(), alias: z.string(), ach_type: z.string(), currency: z.string() }),
);

export const profileDetail = component(
  'ProfileDetail',
  profile.extend({ holdings: z.array(holding), confirmed_uids: confirmedUids, accounts: z.array(dfiAccount) }),
);

export const profileWithUids = component('ProfileWithUids', profile.extend({ confirmed_uids: confirmedUids }));

/** sender_info, recipient_info and presend's recipient_info (UIDInfo). */
export const partyInfo = component(
  'UIDInfo',
  z.strictObject({ title: z.string(), screen_name: z.string(), is_individual: z.boolean(), uid_value: z.string(), uid_type: z.string(), original: z.string() }),
);

export const movement = component(
  'Movement',
  z.strictObject({
    number: z.number().int(),
    timestamp,
    action: z.string(),
    from_id: nullableString,
    to_id: nullableString,
    loops: z.array(z.strictObject({ loop_id: z.string(), currency: z.string(), amount: decimal, issuer_id: z.string() })),
  }),
);

const transferFields = {
  id: z.string(),
  workflow_type: z.string(),
  start: timestamp,
  timestamp,
  currency: z.string(),
  amount: decimal,
  next_activity: z.string(),
  completed: z.boolean(),
  canceled: z.boolean(),
  reason: nullableString,
  sender_id: nullableString,
  sender_uid: nullableString,
  sender_info: partyInfo,
  recipient_id: nullableString,
  recipient_uid: nullableString,
  recipient_info: partyInfo,
  sender_is_dfi_account: z.boolean(),
  recipient_is_dfi_account: z.boolean(),
  movements: z.array(movement),
  bundled_transfers: z.array(z.looseObject({ transfer_id: z.string() })).nullable(),
  bundle_transfer_id: nullableString,
  sent_count: z.number().int().optional(),
};
/** Other keys of a transfer are its `appdata.<name>` values (strings). */
const appdataValues = z.string().describe('appdata.<name> values, as top-level keys');

export const transfer = component('Transfer', z.object(transferFields).catchall(appdataValues));

export const paymentCode = component(
  'PaymentCode',
  z.strictObject({
    code: z.string(),
    transfer_id: z.string(),
    currency: z.string(),
    amount: decimal,
    created: timestamp,
    modified: timestamp,
    expires: timestamp,
    sender_id: z.string(),
    recipient_id: nullableString,
    url: z.string(),
  }),
);

export const transferDetail = component(
  'TransferDetail',
  z
    .object({
      ...transferFields,
      end: nullableString,
      run_state: z.string(),
      activity_count: z.number().int(),
      sender_personal_id: nullableString,
      recipient_personal_id: nullableString,
      private: z.boolean(),
      posts: z.array(z.unknown()),
      steps_html: z.string(),
      payment_codes: z.array(paymentCode),
      loyalty: z.array(z.unknown()),
      stakeholders: z.array(z.strictObject({ id: z.string(), roles: z.array(z.string()) })),
      alarms: z.array(z.looseObject({ name: z.string(), timestamp })),
      message: z.string(),
      message_subject: z.string().optional(),
      total_due: decimal.optional(),
      total_tax: decimal.optional(),
      amount_received: decimal.optional(),
      rdfi_name: z.string().optional(),
      account_number_redacted: z.string().optional(),
      redeem_amount: decimal.optional(),
      fee_amount: decimal.optional(),
      ach_type: z.string().optional(),
      effective_date: z.string().optional(),
      hold_seconds: z.number().int().optional(),
      holding_until: timestamp.optional(),
      dest_amount: decimal.optional(),
      dest_currency: z.string().optional(),
      source_amount: decimal.optional(),
      source_currency: z.string().optional(),
      source_amount_without_fee: decimal.optional(),
      fx_rate: z.string().optional(),
      fx_quote_id: nullableString.optional(),
      fx_holder_id: nullableString.optional(),
      dfi_error: z.looseObject({ error: z.string(), message: z.string() }).optional(),
      dfi_result: z.looseObject({}).optional(),
      invitation_code: z.string().optional(),
      offer_name: z.string().optional(),
      fee_option_name: z.string().optional(),
    })
    .catchall(appdataValues),
);

/** { transfer: TransferDetail } — the answer of the calls that change a transfer. */
export const transferDetailAnswer = z.strictObject({ transfer: transferDetail });
/** { transfer, profile } — a new transfer and the sender's updated ProfileDetail. */
export const transferAndProfileAnswer = z.strictObject({ transfer: transferDetail, profile: profileDetail });

export const walletInfo = z.strictObject({
  profile: profileDetail,
  related: z.array(profileDetail),
  personal_profile: profile.optional(),
});

const unauthenticated = z.record(z.string(), z.strictObject({ original: z.string(), country: nullableString }));

export const authnResult = component(
  'AuthnResult',
  z.strictObject({
    attempt_path: z.string(),
    secret: z.string().optional(),
    factor_id: z.string().optional(),
    code_length: z.number().int().optional(),
    unauthenticated: unauthenticated.optional(),
    revealed_codes: z.array(z.string()).optional().describe('sandbox only'),
    completed_mfa: z.boolean(),
    authenticated: z.record(z.string(), z.strictObject({ original: z.string(), country: nullableString, strong: z.boolean(), used_password: z.boolean() })),
    profile_id: nullableString,
    profile_title: nullableString,
    signup: z.strictObject({ first_name: nullableString, last_name: nullableString, has_password: z.boolean(), name_checked: z.boolean() }).nullable(),
    invite_id: nullableString,
    captcha_required: z.boolean(),
    trust30: z.boolean(),
    token: accessTokenInfo.optional(),
    profile: profile.optional(),
  }),
);

export const addUidAnswer = z.strictObject({
  attempt_id: z.string(),
  secret: z.string(),
  code_length: z.number().int(),
  unauthenticated,
  revealed_codes: z.array(z.string()).optional().describe('sandbox only'),
});

export const sendableAmount = component(
  'SendableAmount',
  z.strictObject({
    loop_id: z.string(),
    currency: z.string(),
    issuer_id: z.string(),
    title: z.string(),
    thumbnail: z.string().nullable(),
    amount: decimal,
    max_sendable: decimal,
    missing_agreement: z.boolean(),
  }),
);

/** { features } — a profile's feature names. */
export const featuresAnswer = z.strictObject({ features: z.array(z.string()) });
