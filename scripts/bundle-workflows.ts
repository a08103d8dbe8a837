// Bundles the workflow code once, so workers can start from it (DEEP_RESEARCH_WORKFLOW_BUNDLE)
// instead of bundling at start. Re-run after every change to src/workflows.
//   npm run bundle:workflows -- [out]      (default: dist/workflow-bundle.js)
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TRACING_WORKFLOW_MODULES } from '../src/telemetry/tracing';
import { WORKFLOWS_PATH } from '../src/worker/create-worker';

export async function writeWorkflowBundle(out: string): Promise<string> {
  // With the tracing interceptors: they export only on a worker with OTEL_EXPORTER_OTLP_ENDPOINT.
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: TRACING_WORKFLOW_MODULES });
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, code);
  return out;
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist', 'workflow-bundle.js'));
  writeWorkflowBundle(out).then(
    (file) => console.log(`workflow bundle: ${file} (set DEEP_RESEARCH_WORKFLOW_BUNDLE=${file})`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
