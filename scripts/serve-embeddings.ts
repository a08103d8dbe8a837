// The real embedding model of the tests and benches (test/harness/embeddings.ts) on its own: to try
// the product with meaning by hand, or to install it ahead of time (.ci/run does).
//   npm run embeddings:serve              prints the variables that point the product at it
//   npm run embeddings:serve -- --install installs the pinned Python packages into .venv and exits
import { ensureEmbeddingModel, startEmbeddingServer } from '../test/harness/embeddings';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  if (process.argv.includes('--install')) {
    console.log(`embedding model ready: ${ensureEmbeddingModel(log)}`);
    return;
  }
  const server = await startEmbeddingServer({ log });
  console.log(`all-MiniLM-L6-v2 answers at ${server.baseURL}/embeddings; for the product:`);
  for (const [k, v] of Object.entries(server.env)) console.log(`  export ${k}='${v}'`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
