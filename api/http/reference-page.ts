// GET /docs: the OpenAPI document as a readable HTML reference. Swagger UI (swagger-ui-dist, from
// npm) renders it; its script and styles are served from node_modules under /docs/assets, so the
// page needs no CDN and works offline.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const distDirectory = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files the page loads, by the name it asks for; nothing else of the package is served. */
const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

// The start script is a file of its own, so the page's policy allows scripts from this server only.
const startScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    tryItOutEnabled: false,
  });
});
`;

export const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cashloop API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body>
</html>
`;

/** Scripts, styles, images and the document from this server only. */
export const referencePolicy = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const loaded = new Map<string, Buffer>();

/** An asset of the page, with its content type, or null when the name is not one of them. */
export function referenceAsset(name: string): { contentType: string; body: Buffer | string } | null {
  if (name === 'start.js') return { contentType: 'text/javascript; charset=utf-8', body: startScript };
  const contentType = assetTypes[name];
  if (!contentType) return null;
  if (!loaded.has(name)) loaded.set(name, readFileSync(path.join(distDirectory, name)));
  return { contentType, body: loaded.get(name)! };
}
