// Which Pod Security level applies where: a namespace's labels `pod-security.orch.io/<mode>` and
// `<mode>-version` (modes enforce, audit, warn) over the plugin's defaults, and the exemptions
// of the plugin's configuration (a PodSecurityConfiguration, as Kubernetes 1.28 reads it from
// the admission configuration file; doc3 names the plugin only).
import type { Level } from './checks.ts';

export const LABEL_PREFIX = 'pod-security.orch.io/';
export const MODES = ['enforce', 'audit', 'warn'] as const;
export type Mode = (typeof MODES)[number];

export interface LevelVersion {
  level: Level;
  /** `latest` or `v1.<minor>`. */
  version: string;
}
export type Policy = Record<Mode, LevelVersion>;

export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: { usernames: string[]; runtimeClasses: string[]; namespaces: string[] };
}

const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
const CONFIG_VERSIONS = [
  'pod-security.admission.config.orch.io/v1',
  'pod-security.admission.config.orch.io/v1beta1',
  'pod-security.admission.config.orch.io/v1alpha1',
];

export const show = (lv: LevelVersion) => `${lv.level}:${lv.version}`;

function parseLevel(v: unknown): Level | undefined {
  return LEVELS.includes(v as Level) ? (v as Level) : undefined;
}
function parseVersion(v: unknown): string | undefined {
  return v === 'latest' || (typeof v === 'string' && /^v1\.(0|[1-9][0-9]*)$/.test(v)) ? v : undefined;
}

export interface LabelProblem {
  field: string;
  value: string;
  message: string;
}

/**
 * The policy a namespace's labels give over the defaults, and what is wrong with them (a bad
 * level counts as restricted and a bad version as latest, as in 1.28, so a typo never opens a
 * namespace up).
 */
export function policyOf(
  labels: Record<string, string> | undefined,
  defaults: Policy,
): { policy: Policy; problems: LabelProblem[] } {
  const problems: LabelProblem[] = [];
  const policy = structuredClone(defaults);
  for (const mode of MODES) {
    const lk = `${LABEL_PREFIX}${mode}`;
    const vk = `${lk}-version`;
    const l = labels?.[lk];
    if (l !== undefined) {
      const level = parseLevel(l);
      if (!level)
        problems.push({
          field: `metadata.labels[${lk}]`,
          value: l,
          message: 'must be one of privileged, baseline, restricted',
        });
      policy[mode].level = level ?? 'restricted';
    }
    const v = labels?.[vk];
    if (v !== undefined) {
      const version = parseVersion(v);
      if (!version)
        problems.push({ field: `metadata.labels[${vk}]`, value: v, message: 'must be "latest" or "v1.x"' });
      policy[mode].version = version ?? 'latest';
    }
  }
  return { policy, problems };
}

const strings = (v: unknown, what: string): string[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    throw new Error(`PodSecurity: ${what} must be a list of strings`);
  return v as string[];
};

/** The plugin's configuration (undefined: all privileged, no exemptions); throws on a bad one. */
export function parseConfig(raw: unknown): PodSecurityConfig {
  const out: PodSecurityConfig = {
    defaults: {
      enforce: { level: 'privileged', version: 'latest' },
      audit: { level: 'privileged', version: 'latest' },
      warn: { level: 'privileged', version: 'latest' },
    },
    exemptions: { usernames: [], runtimeClasses: [], namespaces: [] },
  };
  if (raw === undefined || raw === null) return out;
  const c = raw as Record<string, unknown>;
  if (typeof c !== 'object' || Array.isArray(c))
    throw new Error('PodSecurity: the configuration must be an object');
  if (
    c.kind !== undefined &&
    (c.kind !== 'PodSecurityConfiguration' || !CONFIG_VERSIONS.includes(String(c.apiVersion)))
  )
    throw new Error(
      `PodSecurity: the configuration is ${String(c.apiVersion)} ${String(c.kind)}, want PodSecurityConfiguration of ${CONFIG_VERSIONS.join(', ')}`,
    );
  const d = (c.defaults ?? {}) as Record<string, unknown>;
  for (const mode of MODES) {
    if (d[mode] !== undefined) {
      const level = parseLevel(d[mode]);
      if (!level)
        throw new Error(`PodSecurity: defaults.${mode}: must be one of privileged, baseline, restricted`);
      out.defaults[mode].level = level;
    }
    if (d[`${mode}-version`] !== undefined) {
      const v = parseVersion(d[`${mode}-version`]);
      if (!v) throw new Error(`PodSecurity: defaults.${mode}-version: must be "latest" or "v1.x"`);
      out.defaults[mode].version = v;
    }
  }
  const e = (c.exemptions ?? {}) as Record<string, unknown>;
  out.exemptions = {
    usernames: strings(e.usernames, 'exemptions.usernames'),
    runtimeClasses: strings(e.runtimeClasses, 'exemptions.runtimeClasses'),
    namespaces: strings(e.namespaces, 'exemptions.namespaces'),
  };
  return out;
}

const RANK: Record<Level, number> = { privileged: 0, baseline: 1, restricted: 2 };
/** Whether `a` admits everything `b` admits (same level and version, or a lower level). */
export const noStricter = (a: LevelVersion, b: LevelVersion) =>
  RANK[a.level] < RANK[b.level] || (a.level === b.level && a.version === b.version);
