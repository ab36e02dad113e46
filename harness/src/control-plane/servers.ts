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
//   admission-plugins  the off-by-default admission plugins but those that refuse or create
//                 everything (AlwaysDeny, NamespaceAutoProvision), need a configuration
//                 (EventRateLimit, ImagePolicyWebhook) or a cloud (PersistentVolumeLabel); also
//                 the WatchList gate on and the fixtures' second set of flags (OIDC username
//                 from `sub`): the cases of those need nothing else of a server, and the plugins
//                 act on pods, services, owner references and namespaces they do not write
//                 (a server of their own cost 30 CPU s a run)
//   admission-configured  EventRateLimit, ImagePolicyWebhook and NamespaceAutoProvision: each
//                 acts only on what its own cases write (events, pods, a config map in a
//                 missing namespace), so one server holds the three the embedded run gives a
//                 server each
//   admission-deny  AlwaysDeny
//   short-compaction  an etcd of its own compacted every 5 s, without the watch cache: versions
//                 and continue tokens are gone within two compactions (declared 12 s)
//
// All but the last are one cluster on one etcd. Every API server on it does the work of each
// custom resource definition a case makes (its status, its API service, its OpenAPI), about
// 16 CPU seconds a run on two cores, hence as few as the cases need.
import { EVENT_RATE_LIMIT_CONFIGURATION } from '../admission/event-rate-limit.ts';
import { type ImagePolicyBackend, writeImagePolicyFiles } from '../admission/image-policy-backend.ts';
import { dialect } from '../dialect.ts';
import type { Declared } from '../targets.ts';
import type { Assets } from './assets.ts';
import type { ApiserverSpec } from './control-plane.ts';

/** The gates and served APIs every server has beyond 1.28's defaults. */
export const GATES = { ValidatingAdmissionPolicy: true };
export const RUNTIME_CONFIG = 'admissionregistration.k8s.io/v1beta1=true,authentication.k8s.io/v1beta1=true';

/** The plugins of the admission-configured server. */
const CONFIGURED = ['EventRateLimit', 'ImagePolicyWebhook', 'NamespaceAutoProvision'];

/** Seconds between the short-compaction server's compactions. */
const COMPACTION_SECONDS = 5;

/** Plugins the admission-plugins server leaves off (they have servers of their own, or need a cloud). */
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
  /** A server with these plugins on beyond the defaults, these gates beyond GATES, and what else it declares. */
  const plugins = (
    extra: string[],
    extraGates: Record<string, boolean> = {},
    more: Partial<Declared> = {},
  ): Pick<ServerSpec, 'flags' | 'declared'> => {
    // SecurityContextDeny is alpha in 1.28: the API server refuses it without its gate
    const g = {
      ...GATES,
      ...extraGates,
      ...(extra.includes('SecurityContextDeny') ? { SecurityContextDeny: true } : {}),
    };
    return {
      flags: () => [
        gateFlag(g),
        `--runtime-config=${RUNTIME_CONFIG}`,
        `--enable-admission-plugins=${extra.join(',')}`,
      ],
      declared: { featureGates: { ...gates, ...g }, admissionPlugins: [...defaults, ...extra], ...more },
    };
  };
  return [
    {
      name: 'main',
      about: `kube-apiserver with the ValidatingAdmissionPolicy gate and --runtime-config=${RUNTIME_CONFIG}, trusting the authentication fixtures, with an audit log`,
      flags: () => common,
      declared: { featureGates: gates, admissionPlugins: defaults, bookmarkSeconds: 60 },
    },
    {
      name: 'admission-plugins',
      about: `kube-apiserver with the off-by-default admission plugins on (${optional.join(', ')}), the WatchList gate on, trusting the fixtures with its OIDC username from the sub claim`,
      auth: 'oidc-sub',
      ...plugins(optional, { WatchList: true }, { authMethods: ['oidc-sub'] }),
    },
    {
      name: 'admission-configured',
      about:
        "kube-apiserver with EventRateLimit (the Namespace bucket holds 5 events, refilled 1 a second), ImagePolicyWebhook (asking the harness's ImageReview backend) and NamespaceAutoProvision on",
      ...plugins(CONFIGURED),
      flags: ({ dir }) => [
        ...common,
        `--enable-admission-plugins=${CONFIGURED.join(',')}`,
        `--admission-control-config-file=${writeImagePolicyFiles(dir, imagePolicy, [{ name: 'EventRateLimit', configuration: EVENT_RATE_LIMIT_CONFIGURATION }], k8s)}`,
      ],
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
