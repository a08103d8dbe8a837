// A long-running worker: `deep-research worker`, or `node dist/worker/main.js`.
import { loadConfig } from '../config/load';
import { connectClient, connectWorker, ensureSearchAttributes } from '../temporal/connection';
import { createResearchWorker } from './create-worker';

export async function runWorker(log: (line: string) => void = console.log): Promise<void> {
  const config = loadConfig();
  const client = await connectClient(config);
  await ensureSearchAttributes(client, config.temporal.namespace);
  await client.close();
  const connection = await connectWorker(config);
  const { worker, close } = await createResearchWorker({ config, connection });
  log(`worker polling task queue "${config.temporal.task_queue}" on ${config.temporal.address} (pid ${process.pid})`);
  try {
    await worker.run();
  } finally {
    await close();
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((err) => {
    console.error(`worker: ${(err as Error).message}`);
    process.exit(1);
  });
}
