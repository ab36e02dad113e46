// The API servers of the control plane a run starts (`run --kubernetes-assets DIR`), each with
// what is declared about it, so that every case has a server it can run on, as the embedded
// run's reference servers do (scripts/embedded.ts):
//
//   main          kube-apiserver as a cluster runs it, plus the ValidatingAdmissionPolicy gate
//                 with admissionregistration.k8s.io/v1beta1 and authentication.k8s.io/v1beta1
//                 served, trusting the authentication fixtures, writing its audit log; the
//                 controller manager talks to it. Its watch cache sends a BOOKMARK about every
//                 minute (declared 60 s), and the health cases start servers of their own
//                 through `orch-conformance kube-apiserver` (declared as the server command)
//   watchlist     the WatchList gate on
//   oidc-sub      the fixtures' second set of flags (OIDC username from `sub`)
//   admission-plugins  the off-by-default admission plugins but those that refuse or create
//                 everything (AlwaysDeny, NamespaceAutoProvision), need a configuration
//                 (EventRateLimit, ImagePolicyWebhook) or a cloud (PersistentVolumeLabel)
//   admission-event-rate-limit, admission-image-policy, admission-autoprovision,
//   admission-deny  one plugin each, as in the embedded run
//   short-compaction  an etcd of its own compacted every 5 s, without the watch cache: versions
//                 and continue tokens are gone within two compactions (declared 12 s)
//
// All but the last are one cluster on one etcd.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_RATE_LIMIT_CONFIGURATION } from '../admission/event-rate-limit.ts';
import { type ImagePolicyBackend, writeImagePolicyFiles } from '../admission/image-policy-backend.ts';
import { dialect } from '../dialect.ts';
import type { Declared } from '../targets.ts';
import type { Assets } from './assets.ts';
import type { ApiserverSpec } from './control-plane.ts';

/** The gates and served APIs every server has beyond 1.28's defaults. */
export const GATES = { ValidatingAdmissionPolicy: true };
export const RUNTIME_CONFIG = 'admissionregistration.k8s.io/v1beta1=true,authentication.k8s.io/v1beta1=true';

/** Seconds between the short-compaction server's compactions. */
const COMPACTION_SECONDS = 5;

/** Plugins the admission-plugins server leaves off (each has a server of its own, or needs a cloud). */
const NOT_TOGETHER = [
  'AlwaysDeny',
  'NamespaceAutoProvision',
  'EventRateLimit',
  'ImagePolicyWebhook',
  'PersistentVolumeLabel',
];

export interface ServerSpec extends ApiserverSpec {
  /** What the suites may rely on (admission plugins: those it has on). */
  declared: Declared;
}

const k8s = dialect('kubernetes');
const gateFlag = (g: Record<string, boolean>) =>
  `--feature-gates=${Object.entries(g)
    .map(([k, v]) => `${k}=${v}`)
    .join(',')}`;

/** The servers, for a control plane of these binaries; `imagePolicy` is the harness's backend. */
export function controlPlaneServers(a: Assets, imagePolicy: ImagePolicyBackend): ServerSpec[] {
  const defaults = a.admissionPlugins.defaults;
  const optional = a.admissionPlugins.all.filter((p) => !defaults.includes(p) && !NOT_TOGETHER.includes(p));
  const common = [gateFlag(GATES), `--runtime-config=${RUNTIME_CONFIG}`];
  const gates = { WatchList: false, ...GATES };
  const plugins = (extra: string[]): Pick<ServerSpec, 'flags' | 'declared'> => {
    // SecurityContextDeny is alpha in 1.28: the API server refuses it without its gate
    const g = extra.includes('SecurityContextDeny') ? { ...GATES, SecurityContextDeny: true } : GATES;
    return {
      flags: () => [
        gateFlag(g),
        `--runtime-config=${RUNTIME_CONFIG}`,
        `--enable-admission-plugins=${extra.join(',')}`,
      ],
      declared: { featureGates: { ...gates, ...g }, admissionPlugins: [...defaults, ...extra] },
    };
  };
  /** An AdmissionConfiguration in Kubernetes' words, written into the server's directory. */
  const admissionConfig = (dir: string, plugin: string, configuration: unknown) => {
    const file = join(dir, 'admission-configuration.json');
    writeFileSync(
      file,
      JSON.stringify(
        k8s.out({
          apiVersion: 'apiserver.config.orch.io/v1',
          kind: 'AdmissionConfiguration',
          plugins: [{ name: plugin, configuration }],
        }),
      ),
    );
    return file;
  };
  return [
    {
      name: 'main',
      about: `kube-apiserver with the ValidatingAdmissionPolicy gate and --runtime-config=${RUNTIME_CONFIG}, trusting the authentication fixtures, with an audit log`,
      flags: () => common,
      declared: { featureGates: gates, admissionPlugins: defaults, bookmarkSeconds: 60 },
    },
    {
      name: 'watchlist',
      about: 'kube-apiserver with the WatchList gate on',
      flags: () => [gateFlag({ ...GATES, WatchList: true }), `--runtime-config=${RUNTIME_CONFIG}`],
      declared: { featureGates: { ...gates, WatchList: true }, admissionPlugins: defaults },
    },
    {
      name: 'oidc-sub',
      about: 'kube-apiserver trusting the fixtures with its OIDC username from the sub claim',
      auth: 'oidc-sub',
      flags: () => common,
      declared: { featureGates: gates, admissionPlugins: defaults, authMethods: ['oidc-sub'] },
    },
    {
      name: 'admission-plugins',
      about: `kube-apiserver with the off-by-default admission plugins on (${optional.join(', ')})`,
      ...plugins(optional),
    },
    {
      name: 'admission-event-rate-limit',
      about:
        'kube-apiserver with EventRateLimit on (the Namespace bucket holds 5 events, refilled 1 a second)',
      ...plugins(['EventRateLimit']),
      flags: ({ dir }) => [
        ...common,
        '--enable-admission-plugins=EventRateLimit',
        `--admission-control-config-file=${admissionConfig(dir, 'EventRateLimit', EVENT_RATE_LIMIT_CONFIGURATION)}`,
      ],
    },
    {
      name: 'admission-image-policy',
      about: "kube-apiserver with ImagePolicyWebhook on, asking the harness's ImageReview backend",
      ...plugins(['ImagePolicyWebhook']),
      flags: ({ dir }) => [
        ...common,
        '--enable-admission-plugins=ImagePolicyWebhook',
        `--admission-control-config-file=${writeImagePolicyFiles(dir, imagePolicy, [], k8s)}`,
      ],
    },
    {
      name: 'admission-autoprovision',
      about: 'kube-apiserver with NamespaceAutoProvision on',
      ...plugins(['NamespaceAutoProvision']),
    },
    { name: 'admission-deny', about: 'kube-apiserver with AlwaysDeny on', ...plugins(['AlwaysDeny']) },
    {
      name: 'short-compaction',
      about: `kube-apiserver on an etcd of its own compacted every ${COMPACTION_SECONDS} s (--etcd-compaction-interval), without the watch cache (--watch-cache=false)`,
      ownEtcd: true,
      flags: () => [...common, `--etcd-compaction-interval=${COMPACTION_SECONDS}s`, '--watch-cache=false'],
      // a version is compacted at the second compaction after it was superseded
      declared: {
        featureGates: gates,
        admissionPlugins: defaults,
        historySeconds: 2 * COMPACTION_SECONDS + 2,
        continueTtlSeconds: 2 * COMPACTION_SECONDS + 2,
      },
    },
  ];
}
