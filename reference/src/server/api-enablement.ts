// --runtime-config when the server is built: its form is checked before anything opens, the
// group versions and resources it names once the kinds are installed.
import type { ServerOptions } from '../config.ts';
import { ConfigurationError } from '../errors/config-error.ts';
import type { Registry } from '../registry/registry.ts';
import {
  parseRuntimeConfig,
  priorityAndFairnessConflict,
  type RuntimeConfig,
  RuntimeConfigError,
} from '../registry/runtime-config.ts';

/**
 * `--runtime-config` parsed; a malformed one, or one that switches off what API priority and
 * fairness needs while its gate is on, is a ConfigurationError (the command line reports it as a
 * usage error).
 */
export function runtimeConfigOf(options: ServerOptions): RuntimeConfig {
  const s = options.runtimeConfig;
  let rc: RuntimeConfig;
  try {
    rc = parseRuntimeConfig(s);
  } catch (e) {
    if (e instanceof RuntimeConfigError) throw new ConfigurationError(`--runtime-config: ${e.message}`);
    throw e;
  }
  const priorityAndFairness = options.featureGates.APIPriorityAndFairness === true;
  const conflict = priorityAndFairness ? priorityAndFairnessConflict(s) : undefined;
  if (conflict) throw new ConfigurationError(conflict);
  return rc;
}

/**
 * Serves the built-in group versions and resources `--runtime-config` and 1.28's defaults
 * select (registry/api-enablement.ts); one it names that the server lacks, or switching off the
 * core group version (namespaces, service accounts and the server's own objects live there), is
 * a ConfigurationError.
 */
export function applyRuntimeConfig(registry: Registry, rc: RuntimeConfig): void {
  try {
    registry.configure(rc);
  } catch (e) {
    if (e instanceof RuntimeConfigError) throw new ConfigurationError(`--runtime-config: ${e.message}`);
    throw e;
  }
  if (!registry.lookup('', 'v1', 'namespaces'))
    throw new ConfigurationError(
      '--runtime-config: the core group version v1 cannot be switched off (with api/all=false or api/ga=false, add v1=true)',
    );
}
