// The operations of api/routes/oauth.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { tokenEndpointErrors } from '../routes/oauth.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const oauthDocs: OperationDocs = {
  getAuthorize: {
    description:
      "The OAuth 2.0 authorization page an app sends a browser to (response_type code or token): the person signs in, enters the code sent to them and consents to the scope; the browser then returns to redirect_uri with a code (or a token) and state.",
    example: { response_type: 'code', client_id: '12345', redirect_uri: 'https://app.example.com/callback', scope: 'view_wallet', state: 'st-1' },
    errors: [],
  },
  postAuthorizeSignin: {
    description:
      "The sign-in form of the authorization page (login and password); answers the next page of the flow as HTML. Throttled per client address.",
    example: { flow: 'f1', login: 'pat@example.com', password: 'correct horse battery' },
    errors: [],
    pages: { 403: "An HTML page: the form has expired or was not sent from this site; start again from the app." },
  },
  postAuthorizeCode: {
    description:
      "The code form of the authorization page: the code sent to the person's UID; answers the consent page as HTML.",
    example: { flow: 'f1', code: '123456' },
    errors: [],
    pages: { 403: "An HTML page: the form has expired or was not sent from this site; start again from the app." },
  },
  postAuthorizeConsent: {
    description:
      "The consent form of the authorization page: allow redirects to redirect_uri with a code (or token) and state, deny with error=access_denied.",
    example: { flow: 'f1', decision: 'allow' },
    errors: [],
    pages: { 403: "An HTML page: the form has expired or was not sent from this site; start again from the app." },
  },
  postToken: {
    description:
      "The OAuth 2.0 token endpoint: exchanges an authorization code for an access token. App credentials by Basic authentication or client_id and client_secret in the form; errors use the OAuth codes (invalid_grant, invalid_client ...).",
    example: { grant_type: 'authorization_code', code: 'c0de', redirect_uri: 'https://app.example.com/callback' },
    errors: [...pick(tokenEndpointErrors, 'invalid_request', 'invalid_client', 'invalid_basic_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope')],
  },
  getWellKnownOauthAuthorizationServer: {
    description:
      "OAuth 2 authorization server metadata (RFC 8414): the issuer, the authorization and token endpoints, the grant and response types, the PKCE methods (S256) and the scopes, so a client library configures itself from the issuer URL.",
    example: {},
    errors: [],
  },
};
