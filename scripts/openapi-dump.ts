// Writes the two OpenAPI documents as the server builds them from the router (<prefix>.v1.json: /openapi.json,
// <prefix>.v2.json: /v2/openapi.json), to diff a refactor of the routers' meta: `npx tsx scripts/openapi-dump.ts
// /tmp/before`, change, `npx tsx scripts/openapi-dump.ts /tmp/after`, `cmp /tmp/before.v2.json /tmp/after.v2.json`.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../server/openapi';
import { buildPixApiOpenApiDocument } from '../server/openapi-pix-api';
import { appRouter } from '../server/routers';

const prefix = process.argv[2];
if (!prefix) {
  console.error('usage: npx tsx scripts/openapi-dump.ts <prefix>');
  process.exit(2);
}
const baseUrl = 'http://localhost:3000';
writeFileSync(`${prefix}.v1.json`, `${JSON.stringify(buildOpenApiDocument(appRouter, baseUrl), null, 2)}\n`);
writeFileSync(`${prefix}.v2.json`, `${JSON.stringify(buildPixApiOpenApiDocument(appRouter, baseUrl), null, 2)}\n`);
