// Writes the API's OpenAPI document to generated/openapi.json (from the schemas the routes
// validate and serialize with). `npm run openapi` then lints it (Redocly) and generates the web
// app's API types from it (openapi-typescript → generated/api-types.d.ts); typecheck runs it first.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, PROJECT_ROOT } from '../src/config/load';
import { openApiDocument } from '../src/server/openapi';

async function main(): Promise<void> {
  // The repository's configuration, whatever this shell's variables say.
  const document = await openApiDocument(loadConfig({ DEEP_RESEARCH_CONFIG: path.join(PROJECT_ROOT, 'configs', 'config.json') }));
  const out = path.join(PROJECT_ROOT, 'generated', 'openapi.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`OpenAPI document: ${path.relative(process.cwd(), out)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
