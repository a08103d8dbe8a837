// deploy/k8s: workers and `serve` for an existing Temporal cluster and PostgreSQL. No cluster runs
// here, so the manifests are checked against the Kubernetes API schemas with kubeconform (strict:
// unknown fields are errors), and against what the code expects: real CLI commands and flags,
// probes on the ports the processes serve, variables the code reads, pinned images.
import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildProgram } from '../src/cli/main';
import { PROJECT_ROOT } from '../src/config/load';

const K8S = path.join(PROJECT_ROOT, 'deploy', 'k8s');
const KUBERNETES_VERSION = '1.33.0';
const KUBECONFORM = [process.env.KUBECONFORM, path.join(PROJECT_ROOT, '.venv', 'bin', 'kubeconform')].find((f) => f && existsSync(f));
const SCHEMAS = process.env.KUBECONFORM_SCHEMAS ?? path.join(PROJECT_ROOT, '.venv', 'k8s-schemas');
const missing = !KUBECONFORM
  ? 'kubeconform is not installed (bash scripts/install-deploy-checkers.sh; .ci/run does)'
  : !existsSync(path.join(SCHEMAS, `v${KUBERNETES_VERSION}-local-strict`))
    ? `no Kubernetes ${KUBERNETES_VERSION} schemas in ${SCHEMAS} (bash scripts/install-deploy-checkers.sh)`
    : undefined;
if (missing) console.warn(`deploy/k8s schema check skipped: ${missing}`);

const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml')).map((f) => path.join(K8S, f));

function kubeconform(paths: string[]) {
  const location = path.join(SCHEMAS, '{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}', '{{ .ResourceKind }}{{ .KindSuffix }}.json');
  return spawnSync(KUBECONFORM as string, ['-strict', '-summary', '-output', 'json', '-kubernetes-version', KUBERNETES_VERSION, '-schema-location', location, ...paths], { encoding: 'utf8', timeout: 60_000 });
}

interface Container {
  args: string[];
  image: string;
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
}
type Doc = any;
const docs: Doc[] = files.flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as Doc));
const byKind = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

describe('deploy/k8s', () => {
  it.skipIf(!!missing)('is valid against the Kubernetes API schemas (kubeconform, strict)', () => {
    const run = kubeconform(files);
    const summary = JSON.parse(run.stdout || '{}') as { summary?: { valid: number; invalid: number; errors: number; skipped: number } };
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(summary.summary).toEqual({ valid: docs.length, invalid: 0, errors: 0, skipped: 0 });
    // The checker does check: an unknown field and a wrong type are refused.
    const broken = path.join(mkdtempSync(path.join(tmpdir(), 'dr-k8s-')), 'broken.yaml');
    writeFileSync(broken, readFileSync(path.join(K8S, 'worker.yaml'), 'utf8').replace('replicas: 3', 'replicas: "3"').replace('terminationGracePeriodSeconds', 'terminationGracePeriodSecond'));
    const refused = kubeconform([broken]);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toContain('terminationGracePeriodSecond');
  });

  it('runs workers and serve with commands the CLI has, probes on the ports they serve, the config and secret they read', () => {
    const program = buildProgram();
    const worker = byKind('Deployment', 'deep-research-worker').spec.template.spec.containers[0] as Container;
    const serve = byKind('Deployment', 'deep-research-serve').spec.template.spec.containers[0] as Container;
    for (const c of [worker, serve]) {
      const [command, ...args] = c.args;
      const cmd = program.commands.find((x: Command) => x.name() === command);
      expect(cmd, command).toBeDefined();
      const longs = new Set(cmd?.options.map((o) => o.long));
      for (const flag of args.filter((a) => a.startsWith('--'))) expect(longs.has(flag), `${command} ${flag}`).toBe(true);
      expect(c.image).toMatch(/^deep-research:\d+\.\d+\.\d+$/);
      expect(c.envFrom).toEqual([{ configMapRef: { name: 'deep-research' } }, { secretRef: { name: 'deep-research' } }]);
      const probePort = c.ports.find((p) => p.name === c.livenessProbe.httpGet.port)?.containerPort;
      expect(probePort, command).toBeDefined();
      if (command === 'worker') {
        expect(c.args).toEqual(expect.arrayContaining(['--health-port', `0.0.0.0:${probePort}`, '--metrics-port']));
        expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      } else {
        expect(c.args).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--port', String(probePort), '--no-worker']));
        expect(c.livenessProbe.httpGet.path).toBe('/api/health');
        // Readiness asks the dependencies; liveness does not (an outage must not restart replicas).
        expect((c as unknown as { readinessProbe: { httpGet: { path: string; port: string } } }).readinessProbe.httpGet).toEqual({ path: '/api/ready', port: c.livenessProbe.httpGet.port });
      }
    }
    const service = byKind('Service', 'deep-research');
    expect(service.spec.selector).toEqual(byKind('Deployment', 'deep-research-serve').spec.selector.matchLabels);
    // The settings and secrets are variables the code reads; the secret names the stores, keys and the operator's token.
    const code = readdirSync(path.join(PROJECT_ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(path.join(PROJECT_ROOT, 'src', f), 'utf8'))
      .join('\n');
    const secret = byKind('Secret', 'deep-research');
    for (const key of [...Object.keys(byKind('ConfigMap', 'deep-research').data), ...Object.keys(secret.stringData)]) {
      expect(new RegExp(`env\\.${key}\\b|env\\[['"]${key}['"]\\]|['"]${key}['"]`).test(code), `${key} is not read by src/`).toBe(true);
    }
    for (const key of ['DATABASE_URL', 'DEEP_RESEARCH_PAYLOAD_KEYS', 'DEEP_RESEARCH_OPERATOR_TOKEN']) expect(secret.stringData).toHaveProperty(key);
  });

  it('applies as written: every ConfigMap and Secret a pod reads is one of the manifests, and the image is the tag the deployment guide builds', () => {
    const pods = docs.filter((d) => d.kind === 'Deployment').flatMap((d) => d.spec.template.spec.containers as Container[]);
    expect(pods.length).toBe(2);
    const version = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const guide = readFileSync(path.join(PROJECT_ROOT, 'docs', 'deployment.md'), 'utf8');
    for (const c of pods) {
      for (const from of c.envFrom) {
        const [kind, name] = from.configMapRef ? ['ConfigMap', from.configMapRef.name] : ['Secret', from.secretRef?.name];
        expect(byKind(kind, name as string), `${kind} ${name}`).toBeDefined();
      }
      expect(c.image).toBe(`deep-research:${version}`);
    }
    // The deployment guide's steps build that image and apply these files.
    expect(guide).toContain(`docker build -f deploy/Dockerfile -t deep-research:${version} .`);
    expect(guide).toContain('kubectl apply -f deploy/k8s/configmap.yaml -f deploy/k8s/worker.yaml -f deploy/k8s/serve.yaml');
  });
});
