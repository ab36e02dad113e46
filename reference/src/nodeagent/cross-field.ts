// The rules of a node agent configuration that tie fields together (doc3 § Node agent
// configuration, and the kubelet 1.28 where marked), checked on a defaulted configuration.
// Each error is reported at the field the rule constrains.
import { durationSeconds } from '../util/duration.ts';
import { type FieldError, keyPath } from './field-error.ts';
import { checks, type RuleOptions } from './rule-class.ts';

type Obj = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

export function checkCrossField(c: Obj, opts: RuleOptions | undefined, out: FieldError[]): void {
  // duration signs and the CFS quota period range read durations; they are range rules
  if (checks(opts, 'ranges')) checkDurationRanges(c, out);
  if (checks(opts, 'values')) checkEnforcementValues(c, out);
  if (!checks(opts, 'cross-field')) return;
  checkLimits(c, out);
  checkShutdown(c, out);
  checkDependencies(c, out);
}

/** Durations that must not be negative, and the CFS quota period's range. */
function checkDurationRanges(c: Obj, out: FieldError[]): void {
  for (const name of ['shutdownGracePeriod', 'shutdownGracePeriodCriticalPods']) {
    const s = durationSeconds(c[name]);
    if (s !== undefined && s < 0)
      out.push({ path: name, type: 'Invalid value', value: c[name], detail: 'must not be negative' });
  }
  // kubelet 1.28: the CFS quota period is from 1ms to 1s
  const q = durationSeconds(c.cpuCFSQuotaPeriod);
  if (q !== undefined && (q < 0.001 || q > 1))
    out.push({
      path: 'cpuCFSQuotaPeriod',
      type: 'Invalid value',
      value: c.cpuCFSQuotaPeriod,
      detail: 'must be between 1ms and 1s',
    });
}

function checkEnforcementValues(c: Obj, out: FieldError[]): void {
  // kubelet 1.28: "none" is an enforcement option only on its own
  const enforce = c.enforceNodeAllocatable;
  if (Array.isArray(enforce) && enforce.length > 1 && enforce.includes('none'))
    out.push({
      path: 'enforceNodeAllocatable',
      type: 'Invalid value',
      value: enforce,
      detail: '"none" cannot be combined with other enforcement options',
    });
}

/** Thresholds and counts bounded by another field, and fields that need another set. */
function checkLimits(c: Obj, out: FieldError[]): void {
  const high = num(c.imageGCHighThresholdPercent);
  const low = num(c.imageGCLowThresholdPercent);
  if (high !== undefined && low !== undefined && high <= low)
    out.push({
      path: 'imageGCHighThresholdPercent',
      type: 'Invalid value',
      value: high,
      detail: `must be above imageGCLowThresholdPercent (${low})`,
    });
  const maxPods = num(c.maxPods);
  const perCore = num(c.podsPerCore);
  if (maxPods !== undefined && perCore !== undefined && perCore > maxPods)
    out.push({
      path: 'podsPerCore',
      type: 'Invalid value',
      value: perCore,
      detail: `must not be above maxPods (${maxPods})`,
    });
  if (c.systemCgroups && !c.cgroupRoot)
    out.push({
      path: 'systemCgroups',
      type: 'Invalid value',
      value: c.systemCgroups,
      detail: 'needs cgroupRoot to be set',
    });
  if (c.maxParallelImagePulls !== undefined && c.serializeImagePulls !== false)
    out.push({
      path: 'maxParallelImagePulls',
      type: 'Forbidden',
      value: c.maxParallelImagePulls,
      detail: 'may be set only when serializeImagePulls is false',
    });
}

/** The shutdown grace periods: the critical pods' within the whole; by priority only without them. */
function checkShutdown(c: Obj, out: FieldError[]): void {
  const total = durationSeconds(c.shutdownGracePeriod);
  const critical = durationSeconds(c.shutdownGracePeriodCriticalPods);
  if (total !== undefined && critical !== undefined && critical > total)
    out.push({
      path: 'shutdownGracePeriodCriticalPods',
      type: 'Invalid value',
      value: c.shutdownGracePeriodCriticalPods,
      detail: `must not be above shutdownGracePeriod (${String(c.shutdownGracePeriod)})`,
    });
  const byPriority = c.shutdownGracePeriodByPodPriority;
  if (Array.isArray(byPriority) && byPriority.length > 0 && ((total ?? 0) !== 0 || (critical ?? 0) !== 0))
    out.push({
      path: 'shutdownGracePeriodByPodPriority',
      type: 'Forbidden',
      detail: 'must be empty when shutdownGracePeriod or shutdownGracePeriodCriticalPods is set',
    });
}

/** Switches, reservations and eviction thresholds that need another field. */
function checkDependencies(c: Obj, out: FieldError[]): void {
  if (c.enableSystemLogQuery === true && c.enableSystemLogHandler === false)
    out.push({
      path: 'enableSystemLogQuery',
      type: 'Forbidden',
      value: true,
      detail: 'needs enableSystemLogHandler to be true',
    });
  const gates = (c.featureGates ?? {}) as Record<string, unknown>;
  if (c.serverTLSBootstrap === true && gates.RotateKubeletServerCertificate === false)
    out.push({
      path: 'serverTLSBootstrap',
      type: 'Forbidden',
      value: true,
      detail: 'needs the feature gate RotateKubeletServerCertificate',
    });
  // kubelet 1.28: enforcing a reservation needs the cgroup it is enforced on
  const enforce = Array.isArray(c.enforceNodeAllocatable) ? c.enforceNodeAllocatable : [];
  if (enforce.includes('system-reserved') && !c.systemReservedCgroup)
    out.push({
      path: 'systemReservedCgroup',
      type: 'Required value',
      detail: 'must be set when enforceNodeAllocatable holds "system-reserved"',
    });
  if (enforce.includes('kube-reserved') && !c.orchReservedCgroup)
    out.push({
      path: 'orchReservedCgroup',
      type: 'Required value',
      detail: 'must be set when enforceNodeAllocatable holds "kube-reserved"',
    });
  // kubelet 1.28: a soft eviction threshold needs its grace period
  const soft = (c.evictionSoft ?? {}) as Obj;
  const grace = (c.evictionSoftGracePeriod ?? {}) as Obj;
  for (const signal of Object.keys(soft))
    if (grace[signal] === undefined)
      out.push({
        path: keyPath('evictionSoftGracePeriod', signal),
        type: 'Required value',
        detail: `a grace period is needed for the soft eviction threshold of ${signal}`,
      });
}
