// The Pod Security Standards' checks as Kubernetes 1.28 runs them (doc3 plugin table: PodSecurity
// "checks new workload units against namespace pod security standards"; the checks themselves are
// not shown there). Each check looks at a pod's metadata and spec and answers a reason (the short
// text of the violation) with a detail (which fields of which containers); a level is the checks
// it runs, the baseline ones first, each group in the order of its check ids, so messages are
// always worded and ordered alike.
/* eslint-disable @typescript-eslint/no-explicit-any */

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface Violation {
  reason: string;
  detail: string;
}

type PodMeta = { annotations?: Record<string, string> } | undefined;
type Check = {
  id: string;
  level: 'baseline' | 'restricted';
  overrides?: string[];
  run(meta: PodMeta, spec: any): Violation | undefined;
};

const plural = (one: string, many: string, n: number) => (n === 1 ? one : many);
const quoted = (xs: readonly (string | number)[]) => xs.map((x) => JSON.stringify(String(x))).join(', ');

interface Container {
  name?: string;
  securityContext?: any;
  ports?: { hostPort?: number }[];
}

/** Every container of the spec: init containers, containers, ephemeral containers. */
function containersOf(spec: any): Container[] {
  const out: Container[] = [];
  for (const k of ['initContainers', 'containers', 'ephemeralContainers'])
    for (const c of Array.isArray(spec?.[k]) ? spec[k] : []) if (c && typeof c === 'object') out.push(c);
  return out;
}
const nameOf = (c: Container) => String(c.name ?? '');
const isWindows = (spec: any) => spec?.os?.name === 'windows';

/** `containers "a", "b"` (or `container "a"`). */
const containersPhrase = (names: string[]) =>
  `${plural('container', 'containers', names.length)} ${quoted(names)}`;

/** `pod and containers "a"` / `pod` / `containers "a"`: who set a forbidden value. */
function setters(pod: boolean, names: string[]): string {
  const parts: string[] = [];
  if (pod) parts.push('pod');
  if (names.length) parts.push(containersPhrase(names));
  return parts.join(' and ');
}

const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const RESTRICTED_VOLUME_TYPES_ALLOWED = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
/** The annotation that names a container's AppArmor profile. */
export const APPARMOR_PREFIX = 'container.apparmor.security.beta.orch.io/';

const CHECKS: Check[] = [
  // ------------------------------------------------------------------------------ baseline
  {
    id: 'appArmorProfile',
    level: 'baseline',
    run(meta) {
      const bad: string[] = [];
      for (const [k, v] of Object.entries(meta?.annotations ?? {}))
        if (k.startsWith(APPARMOR_PREFIX) && !(v === 'runtime/default' || v.startsWith('localhost/')))
          bad.push(`${k}=${JSON.stringify(v)}`);
      if (!bad.length) return undefined;
      bad.sort();
      return {
        reason: plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', bad.length),
        detail: bad.join(', '),
      };
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const caps = new Set<string>();
      for (const c of containersOf(spec)) {
        let bad = false;
        for (const cap of c.securityContext?.capabilities?.add ?? [])
          if (!DEFAULT_CAPABILITIES.has(cap)) {
            caps.add(String(cap));
            bad = true;
          }
        if (bad) names.push(nameOf(c));
      }
      if (!names.length) return undefined;
      return {
        reason: 'non-default capabilities',
        detail: `${containersPhrase(names)} must not include ${quoted([...caps].sort())} in securityContext.capabilities.add`,
      };
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run(_m, spec) {
      const on = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec?.[k] === true);
      return on.length
        ? { reason: 'host namespaces', detail: on.map((k) => `${k}=true`).join(', ') }
        : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run(_m, spec) {
      const vols = (Array.isArray(spec?.volumes) ? spec.volumes : [])
        .filter((v: any) => v?.hostPath)
        .map((v: any) => String(v.name ?? ''));
      return vols.length
        ? {
            reason: 'hostPath volumes',
            detail: `${plural('volume', 'volumes', vols.length)} ${quoted(vols)}`,
          }
        : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const ports: number[] = [];
      for (const c of containersOf(spec)) {
        let bad = false;
        for (const p of Array.isArray(c.ports) ? c.ports : [])
          if (p?.hostPort) {
            bad = true;
            if (!ports.includes(p.hostPort)) ports.push(p.hostPort);
          }
        if (bad) names.push(nameOf(c));
      }
      if (!names.length) return undefined;
      return {
        reason: 'hostPort',
        detail: `${containersPhrase(names)} ${plural('uses', 'use', names.length)} ${plural('hostPort', 'hostPorts', ports.length)} ${ports.join(', ')}`,
      };
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run(_m, spec) {
      const names = containersOf(spec)
        .filter((c) => c.securityContext?.privileged === true)
        .map(nameOf);
      return names.length
        ? {
            reason: 'privileged',
            detail: `${containersPhrase(names)} must not set securityContext.privileged=true`,
          }
        : undefined;
    },
  },
  {
    id: 'procMount',
    level: 'baseline',
    run(_m, spec) {
      const names: string[] = [];
      const values = new Set<string>();
      for (const c of containersOf(spec)) {
        const v = c.securityContext?.procMount;
        if (v !== undefined && v !== null && v !== 'Default') {
          names.push(nameOf(c));
          values.add(String(v));
        }
      }
      if (!names.length) return undefined;
      return {
        reason: 'procMount',
        detail: `${containersPhrase(names)} must not set securityContext.procMount to ${quoted([...values].sort())}`,
      };
    },
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    run(_m, spec) {
      const types = new Set<string>();
      const users = new Set<string>();
      const roles = new Set<string>();
      const look = (o: any): boolean => {
        if (!o || typeof o !== 'object') return false;
        let bad = false;
        if (!SELINUX_TYPES.has(String(o.type ?? ''))) {
          types.add(String(o.type));
          bad = true;
        }
        if (o.user) {
          users.add(String(o.user));
          bad = true;
        }
        if (o.role) {
          roles.add(String(o.role));
          bad = true;
        }
        return bad;
      };
      const pod = look(spec?.securityContext?.seLinuxOptions);
      const names = containersOf(spec)
        .filter((c) => look(c.securityContext?.seLinuxOptions))
        .map(nameOf);
      if (!pod && !names.length) return undefined;
      const parts: string[] = [];
      if (types.size) parts.push(`${plural('type', 'types', types.size)} ${quoted([...types].sort())}`);
      if (users.size) parts.push(`${plural('user', 'users', users.size)} ${quoted([...users].sort())}`);
      if (roles.size) parts.push(`${plural('role', 'roles', roles.size)} ${quoted([...roles].sort())}`);
      return {
        reason: 'seLinuxOptions',
        detail: `${setters(pod, names)} set forbidden securityContext.seLinuxOptions: ${parts.join('; ')}`,
      };
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run(_m, spec) {
      const pod = spec?.securityContext?.seccompProfile?.type === 'Unconfined';
      const names = containersOf(spec)
        .filter((c) => c.securityContext?.seccompProfile?.type === 'Unconfined')
        .map(nameOf);
      if (!pod && !names.length) return undefined;
      return {
        reason: 'seccompProfile',
        detail: `${setters(pod, names)} must not set securityContext.seccompProfile.type to "Unconfined"`,
      };
    },
  },
  {
    id: 'sysctls',
    level: 'baseline',
    run(_m, spec) {
      const bad = (Array.isArray(spec?.securityContext?.sysctls) ? spec.securityContext.sysctls : [])
        .map((s: any) => String(s?.name ?? ''))
        .filter((n: string) => !SAFE_SYSCTLS.has(n));
      return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
    },
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    run(_m, spec) {
      const pod = spec?.securityContext?.windowsOptions?.hostProcess === true;
      const names = containersOf(spec)
        .filter((c) => c.securityContext?.windowsOptions?.hostProcess === true)
        .map(nameOf);
      if (!pod && !names.length) return undefined;
      return {
        reason: 'hostProcess',
        detail: `${setters(pod, names)} must not set securityContext.windowsOptions.hostProcess=true`,
      };
    },
  },
  // ---------------------------------------------------------------------------- restricted
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run(_m, spec) {
      if (isWindows(spec)) return undefined;
      const names = containersOf(spec)
        .filter((c) => c.securityContext?.allowPrivilegeEscalation !== false)
        .map(nameOf);
      return names.length
        ? {
            reason: 'allowPrivilegeEscalation != false',
            detail: `${containersPhrase(names)} must set securityContext.allowPrivilegeEscalation=false`,
          }
        : undefined;
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    run(_m, spec) {
      if (isWindows(spec)) return undefined;
      const missingDrop: string[] = [];
      const adding: string[] = [];
      const caps = new Set<string>();
      for (const c of containersOf(spec)) {
        const k = c.securityContext?.capabilities;
        if (!k) {
          missingDrop.push(nameOf(c));
          continue;
        }
        if (!(Array.isArray(k.drop) && k.drop.includes('ALL'))) missingDrop.push(nameOf(c));
        let bad = false;
        for (const cap of Array.isArray(k.add) ? k.add : [])
          if (cap !== 'NET_BIND_SERVICE') {
            caps.add(String(cap));
            bad = true;
          }
        if (bad) adding.push(nameOf(c));
      }
      const details: string[] = [];
      if (missingDrop.length)
        details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adding.length)
        details.push(
          `${containersPhrase(adding)} must not include ${quoted([...caps].sort())} in securityContext.capabilities.add`,
        );
      return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    overrides: ['hostPathVolumes'],
    run(_m, spec) {
      const names: string[] = [];
      const types = new Set<string>();
      for (const v of Array.isArray(spec?.volumes) ? spec.volumes : []) {
        if (!v || typeof v !== 'object') continue;
        const kinds = Object.keys(v).filter((k) => k !== 'name');
        const bad = kinds.filter((k) => !RESTRICTED_VOLUME_TYPES_ALLOWED.has(k));
        if (bad.length || kinds.length === 0) {
          names.push(String(v.name ?? ''));
          for (const k of bad.length ? bad : ['unknown']) types.add(k);
        }
      }
      if (!names.length) return undefined;
      return {
        reason: 'restricted volume types',
        detail: `${plural('volume', 'volumes', names.length)} ${quoted(names)} ${plural('uses', 'use', names.length)} ${plural('restricted volume type', 'restricted volume types', types.size)} ${quoted([...types].sort())}`,
      };
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run(_m, spec) {
      const badSetters: string[] = [];
      let podTrue = false;
      const p = spec?.securityContext?.runAsNonRoot;
      if (p === false) badSetters.push('pod');
      else if (p === true) podTrue = true;
      const explicit: string[] = [];
      const implicit: string[] = [];
      for (const c of containersOf(spec)) {
        const v = c.securityContext?.runAsNonRoot;
        if (v === false) explicit.push(nameOf(c));
        else if (v !== true && !podTrue) implicit.push(nameOf(c));
      }
      if (explicit.length) badSetters.push(containersPhrase(explicit));
      if (badSetters.length)
        return {
          reason: 'runAsNonRoot != true',
          detail: `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false`,
        };
      if (implicit.length)
        return {
          reason: 'runAsNonRoot != true',
          detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`,
        };
      return undefined;
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    run(_m, spec) {
      const pod = spec?.securityContext?.runAsUser === 0;
      const names = containersOf(spec)
        .filter((c) => c.securityContext?.runAsUser === 0)
        .map(nameOf);
      if (!pod && !names.length) return undefined;
      return { reason: 'runAsUser=0', detail: `${setters(pod, names)} must not set runAsUser=0` };
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    overrides: ['seccompProfile_baseline'],
    run(_m, spec) {
      const ok = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
      const podType = spec?.securityContext?.seccompProfile?.type;
      const podBad = podType !== undefined && !ok(podType);
      const podOk = ok(podType);
      const explicitBad: string[] = [];
      const badValues = new Set<string>();
      if (podBad) badValues.add(String(podType));
      const implicit: string[] = [];
      for (const c of containersOf(spec)) {
        const t = c.securityContext?.seccompProfile?.type;
        if (t !== undefined) {
          if (!ok(t)) {
            explicitBad.push(nameOf(c));
            badValues.add(String(t));
          }
        } else if (!podOk) implicit.push(nameOf(c));
      }
      if (isWindows(spec)) return undefined;
      if (podBad || explicitBad.length)
        return {
          reason: 'seccompProfile',
          detail: `${setters(podBad, explicitBad)} must not set securityContext.seccompProfile.type to ${quoted([...badValues].sort())}`,
        };
      if (implicit.length)
        return {
          reason: 'seccompProfile',
          detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
        };
      return undefined;
    },
  },
];

const BASELINE = CHECKS.filter((c) => c.level === 'baseline');
const OVERRIDDEN = new Set(CHECKS.flatMap((c) => c.overrides ?? []));
const RESTRICTED = [
  ...BASELINE.filter((c) => !OVERRIDDEN.has(c.id)),
  ...CHECKS.filter((c) => c.level === 'restricted'),
];

/** The violations of a pod's metadata and spec at a level, in Kubernetes' order (none at privileged). */
export function evaluate(level: Level, meta: PodMeta, spec: unknown): Violation[] {
  const checks = level === 'privileged' ? [] : level === 'baseline' ? BASELINE : RESTRICTED;
  const out: Violation[] = [];
  for (const c of checks) {
    const v = c.run(meta, spec);
    if (v) out.push(v);
  }
  return out;
}

/** `reason1 (detail1), reason2 (detail2)`: how 1.28 lists violations in a message. */
export const describe = (vs: readonly Violation[]) => vs.map((v) => `${v.reason} (${v.detail})`).join(', ');
