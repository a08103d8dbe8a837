// The real-page world on its own, to try the product from outside as a user would: a Temporal dev
// server, the 990 saved pages of ../shared/data/extraction-trafilatura at their own hosts, BM25
// search behind a SearXNG endpoint, the grounded model behind an OpenAI-compatible one, and one
// worker (in this process, where the pages' host names resolve to loopback). It writes the
// variables the README tells a user to set to a file, for the CLI (or `deep-research serve
// --no-worker`) in another shell, and runs until stopped:
//   npx tsx scripts/serve-real-world.ts [env-file]     (default: ./real-world.env)
//   . ./real-world.env && deep-research research --yes "How is climate change making …?"
// With SLOW_ANALYSIS_FILE=<path>, every analysis takes 10 s while that file exists (to cancel a
// session in its first analysis, then resume it).
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { corpusAvailable } from '../test/harness/real-pages';
import { REAL_PLANS } from '../test/harness/real-questions';
import { startRealEnvironment, startRealWorld } from '../test/harness/real-world';
import { startTestServer } from '../test/harness/temporal';

async function main(): Promise<void> {
  if (!corpusAvailable()) throw new Error('the real-page world needs ../shared/data/extraction-trafilatura');
  const file = path.resolve(process.argv[2] ?? 'real-world.env');
  const server = await startTestServer();
  const world = await startRealWorld({ plans: REAL_PLANS });
  const env = await startRealEnvironment(world, server.address);
  const slow = process.env.SLOW_ANALYSIS_FILE;
  if (slow) world.model.script.delayFor = (name) => (name === 'source_analysis' && existsSync(slow) ? 10_000 : 0);
  writeFileSync(file, `${Object.entries(env.env).map(([k, v]) => `export ${k}='${v}'`).join('\n')}\n`);
  console.log(`real-page world up; its variables are in ${file} (stop with Ctrl-C)`);
  const stop = async () => {
    await env.close();
    await world.close();
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
