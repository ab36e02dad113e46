#!/usr/bin/env bash
# The conformance step of the CI templates (ci-templates/github, ci-templates/gitlab), run from
# the root of a clone of this repository. It chooses the target from ORCH_TARGET, runs the
# suites keeping the history of runs in out/history (the templates keep that folder between
# runs), and leaves the report in out/report (index.html, matrix.html, trend.html, html/ for
# Allure, junit.xml, summary.json). Exits with the run's code: 0 when every case met its
# expectation.
#
#   ORCH_TARGET      embedded (default): the reference server, started by the run
#                    kind: the cluster of KUBECONFIG (made with kind, Kubernetes 1.28, when
#                          none answers and `kind` is installed), in Kubernetes' words, with
#                          expectations/kubernetes-1.28.yaml
#                    endpoint: ORCH_ENDPOINT with ORCH_TOKEN and the CA in ORCH_CA_PEM (PEM text)
#   ORCH_RUN_FLAGS   more flags for `orch-conformance run` (--level must, --area watch, ...)
#   ORCH_DIALECT, ORCH_EXPECT   the dialect and expectations file (endpoint target)
#   ORCH_RUN_LABEL   the run's name in the history (default: the CI's run number and commit)
#   ORCH_SPEC_DIR    the folder of the three spec documents (default ../shared/spec, else spec/)
set -uo pipefail

# a CI passes an unset variable or secret as an empty one: empty means unset here
for v in ORCH_ENDPOINT ORCH_TOKEN ORCH_CA_PEM ORCH_DIALECT ORCH_EXPECT ORCH_RUN_FLAGS ORCH_RUN_LABEL; do
  if [ -z "${!v:-}" ]; then unset "$v"; fi
done

# the three spec documents (the matrix places every case in them): ORCH_SPEC_DIR, else
# ../shared/spec as this repository expects them, else spec/ in the clone
if [ -z "${ORCH_SPEC_DIR:-}" ]; then
  if [ -d ../shared/spec ]; then ORCH_SPEC_DIR=$(cd ../shared/spec && pwd)
  elif [ -d spec ]; then ORCH_SPEC_DIR=$PWD/spec
  fi
fi
if [ -z "${ORCH_SPEC_DIR:-}" ] || [ ! -f "$ORCH_SPEC_DIR/doc1-resource-api.md" ]; then
  echo "run-conformance: the spec documents (doc1-resource-api.md, ...) are at neither ORCH_SPEC_DIR, ../shared/spec nor spec/: commit them to spec/ of this clone or set ORCH_SPEC_DIR" >&2
  exit 2
fi
export ORCH_SPEC_DIR

flags=()
case "${ORCH_TARGET:-embedded}" in
  embedded) ;;
  kind)
    kubeconfig=${KUBECONFIG:-$HOME/.kube/config}
    if ! kubectl --kubeconfig "$kubeconfig" version >/dev/null 2>&1; then
      if ! command -v kind >/dev/null; then
        echo "run-conformance: ORCH_TARGET=kind, but no cluster answers at $kubeconfig and kind is not installed" >&2
        exit 2
      fi
      kind create cluster --name orch-conformance --image kindest/node:v1.28.0 --wait 180s --kubeconfig "$kubeconfig" || exit 2
    fi
    flags+=(--kubeconfig "$kubeconfig" --dialect kubernetes --disposable
      --expect "${ORCH_EXPECT:-expectations/kubernetes-1.28.yaml}")
    ;;
  endpoint)
    if [ -z "${ORCH_ENDPOINT:-}" ]; then
      echo "run-conformance: ORCH_TARGET=endpoint needs ORCH_ENDPOINT (and ORCH_TOKEN, ORCH_CA_PEM)" >&2
      exit 2
    fi
    if [ -n "${ORCH_CA_PEM:-}" ]; then
      ca=$(mktemp)
      trap 'rm -f "$ca"' EXIT
      printf '%s\n' "$ORCH_CA_PEM" >"$ca"
      export ORCH_CA=$ca
    fi
    if [ -n "${ORCH_DIALECT:-}" ]; then flags+=(--dialect "$ORCH_DIALECT"); fi
    if [ -n "${ORCH_EXPECT:-}" ]; then flags+=(--expect "$ORCH_EXPECT"); fi
    ;;
  *)
    echo "run-conformance: ORCH_TARGET=${ORCH_TARGET}: not embedded, kind or endpoint" >&2
    exit 2
    ;;
esac

if [ -z "${ORCH_RUN_LABEL:-}" ]; then
  if [ -n "${GITHUB_RUN_NUMBER:-}" ]; then
    ORCH_RUN_LABEL="#${GITHUB_RUN_NUMBER} ${GITHUB_SHA:0:8}"
  elif [ -n "${CI_PIPELINE_IID:-}" ]; then
    ORCH_RUN_LABEL="#${CI_PIPELINE_IID} ${CI_COMMIT_SHORT_SHA:-}"
  fi
fi
if [ -n "${ORCH_RUN_LABEL:-}" ]; then export ORCH_RUN_LABEL; fi

extra=()
if [ -n "${ORCH_RUN_FLAGS:-}" ]; then read -r -a extra <<<"$ORCH_RUN_FLAGS"; fi

npm run conformance -- "${flags[@]}" "${extra[@]}" --history out/history --report out/report
