// The metric life cycle of doc2's deprecation policy: a metric has a stability level and may
// name the release that deprecated it. A deprecated metric is still registered, its description
// starting `(Deprecated from x.y)`, until its hiding release; from then on it is hidden (not
// registered), unless `--show-hidden-metrics-for-version` names the previous minor release, which
// shows again the metrics that release still exposed.
//
// How long a deprecated metric stays shown, by stability (doc2 rule 9b, the release of the
// deprecation counted): STABLE 3 releases (doc2: hidden when its deprecated version equals the
// current version minus 3); BETA 1 release. ALPHA metrics may go at once (rule 9b: 0), and
// Kubernetes 1.28 keeps them through the release that deprecates them (it still exposes
// `apiserver_storage_db_total_size_in_bytes`, deprecated in 1.28, and no longer
// `apiserver_request_slo_duration_seconds`, deprecated in 1.27): 1 release, as BETA.

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export const SHOWN_RELEASES: Readonly<Record<StabilityLevel, number>> = { STABLE: 3, BETA: 1, ALPHA: 1 };

export interface Release {
  major: number;
  minor: number;
}

/** `1.28` or `1.28.0` (a leading `v` allowed): the major and minor release; undefined otherwise. */
export function parseRelease(v: string): Release | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(v.trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

function releaseOf(v: string): Release {
  const r = parseRelease(v);
  if (!r) throw new Error(`not a release version: ${JSON.stringify(v)} (want <major>.<minor>, e.g. 1.28)`);
  return r;
}

/** Releases from `a` to `b` (negative when `b` is older); across majors the minors are not comparable, so a later major counts as far later. */
function releasesBetween(a: Release, b: Release): number {
  if (a.major !== b.major) return (b.major - a.major) * 1000;
  return b.minor - a.minor;
}

export interface LifecycleFacts {
  stability: StabilityLevel;
  /** The release that deprecated the metric (`1.28`); none while it is not deprecated. */
  deprecatedVersion?: string;
}

/** Whether the metric is deprecated at release `current` (a deprecation announced for a later release is not in force yet). */
export function isDeprecated(m: LifecycleFacts, current: string): boolean {
  return (
    m.deprecatedVersion !== undefined &&
    releasesBetween(releaseOf(m.deprecatedVersion), releaseOf(current)) >= 0
  );
}

/** Whether the metric is hidden at release `current` (not registered), without the show-hidden flag. */
export function isHiddenAt(m: LifecycleFacts, current: string): boolean {
  if (m.deprecatedVersion === undefined) return false;
  return releasesBetween(releaseOf(m.deprecatedVersion), releaseOf(current)) >= SHOWN_RELEASES[m.stability];
}

/** The release before `current` (`1.27` for `1.28`), the only value the show-hidden flag accepts. */
export function previousMinor(current: string): string {
  const r = releaseOf(current);
  if (r.minor === 0) throw new Error(`release ${current} has no previous minor release`);
  return `${r.major}.${r.minor - 1}`;
}

/**
 * Why a `--show-hidden-metrics-for-version` value is refused at release `current`, or
 * undefined when it is accepted: it must be empty or exactly the previous minor release.
 */
export function showHiddenProblem(value: string | undefined, current: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const allowed = previousMinor(current);
  if (value === allowed) return undefined;
  return `--show-hidden-metrics-for-version must be omitted or have the value '${allowed}'. Only the previous minor version is allowed (got '${value}')`;
}

/**
 * Whether the metric is registered at release `current`: hidden ones only when the flag names
 * the previous release and that release still showed them (a metric hidden since longer is
 * not brought back: doc2 deletes hidden metrics after one release).
 */
export function isShown(m: LifecycleFacts, current: string, showHiddenFor?: string): boolean {
  if (!isHiddenAt(m, current)) return true;
  return showHiddenFor !== undefined && showHiddenFor !== '' && !isHiddenAt(m, showHiddenFor);
}

/** The description a registered metric is exposed with: its stability in brackets, `(Deprecated from x.y)` first when deprecated. */
export function describe(m: LifecycleFacts & { help: string }, current: string): string {
  const text = `[${m.stability}] ${m.help}`;
  if (!isDeprecated(m, current)) return text;
  const d = releaseOf(m.deprecatedVersion!);
  return `(Deprecated from ${d.major}.${d.minor}) ${text}`;
}
