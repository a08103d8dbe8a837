// Bundles the workflow code once, so workers can start from it (DEEP_RESEARCH_WORKFLOW_BUNDLE)
// instead of bundling at start. Re-run after every change to src/workflows.
//   npm run bundle:workflows -- [out]      (default: dist/workflow-bundle.js)
// Writes two bundles: `out` without the tracing interceptors and `<out>.tracing.js` with them. The
// tracing code nearly doubles the bundle and every cached workflow pays for it, so a worker takes
// the tracing bundle only when it exports traces (OTEL_EXPORTER_OTLP_ENDPOINT).
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TRACING_WORKFLOW_MODULES } from '../src/telemetry/tracing';
import { FAILURE_CONVERTER_PATH } from '../src/temporal/codec';
import { tracingBundlePath, WORKFLOWS_PATH } from '../src/worker/create-worker';

export async function writeWorkflowBundle(out: string, options: { tracing?: 'both' | 'only' | 'none' } = {}): Promise<string> {
  const tracing = options.tracing ?? 'both';
  mkdirSync(path.dirname(out), { recursive: true });
  if (tracing !== 'only') writeFileSync(out, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH })).code);
  if (tracing !== 'none') {
    const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH, workflowInterceptorModules: TRACING_WORKFLOW_MODULES });
    writeFileSync(tracingBundlePath(out), code);
  }
  return tracing === 'only' ? tracingBundlePath(out) : out;
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
