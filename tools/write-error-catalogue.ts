// Writes docs/errors.md from the error tables (api/docs/error-catalogue.ts).
// Run: node --import tsx tools/write-error-catalogue.ts
import { writeFileSync } from 'node:fs';
import { errorCatalogue } from '../api/docs/error-catalogue.ts';

writeFileSync(new URL('../docs/errors.md', import.meta.url), errorCatalogue());
