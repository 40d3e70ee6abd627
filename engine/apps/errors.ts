// Named outcomes of app authentication; the edge maps each once (edgeErrors in api/http/errors.ts).
export type AppCheckError = 'app_not_found' | 'app_credentials_changed';
