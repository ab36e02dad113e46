// The catalogue of faults: each breaks one rule of the spec and names the suite area that
// must catch it. Each area keeps its faults in its own file here. The node-agent-config suite
// runs commands, not requests: its faults are faulty commands, listed apart in node-config.ts.
import type { Fault } from '../fault-proxy.ts';
import { ADMISSION_FAULTS } from './admission.ts';
import { ORDERING_FAULTS } from './admission-ordering.ts';
import { POLICY_FAULTS } from './admission-policy.ts';
import { APPLY_FAULTS } from './apply.ts';
import { AUTHENTICATION_FAULTS } from './authentication.ts';
import { AUTHORIZATION_FAULTS } from './authorization.ts';
import { CEL_FAULTS } from './cel.ts';
import { CEL_ENVIRONMENT_FAULTS } from './cel-environment.ts';
import { CHUNKING_FAULTS } from './chunking.ts';
import { CONTENT_TYPE_FAULTS } from './content-types.ts';
import { CRUD_FAULTS } from './crud.ts';
import { DELETION_FAULTS } from './deletion.ts';
import { DEPRECATION_FAULTS } from './deprecation.ts';
import { CORE_FAULTS } from './doc1-core.ts';
import { DRY_RUN_FAULTS } from './dry-run.ts';
import { ERRORS_FAULTS } from './errors.ts';
import { FIELD_VALIDATION_FAULTS } from './field-validation.ts';
import { HEALTH_FAULTS } from './health.ts';
import { PATCH_FAULTS } from './patch.ts';
import { PATHS_FAULTS } from './paths.ts';
import { RESOURCE_VERSION_FAULTS } from './resource-versions.ts';
import { WATCH_FAULTS } from './watch.ts';

export const FAULTS: Fault[] = [
  ...CORE_FAULTS,
  ...RESOURCE_VERSION_FAULTS,
  ...CHUNKING_FAULTS,
  ...WATCH_FAULTS,
  ...CRUD_FAULTS,
  ...PATHS_FAULTS,
  ...ERRORS_FAULTS,
  ...DELETION_FAULTS,
  ...PATCH_FAULTS,
  ...DRY_RUN_FAULTS,
  ...FIELD_VALIDATION_FAULTS,
  ...CONTENT_TYPE_FAULTS,
  ...APPLY_FAULTS,
  ...AUTHENTICATION_FAULTS,
  ...AUTHORIZATION_FAULTS,
  ...HEALTH_FAULTS,
  ...CEL_FAULTS,
  ...CEL_ENVIRONMENT_FAULTS,
  ...ADMISSION_FAULTS,
  ...ORDERING_FAULTS,
  ...POLICY_FAULTS,
  ...DEPRECATION_FAULTS,
];

export function faultByName(name: string): Fault {
  const f = FAULTS.find((x) => x.name === name);
  if (!f) throw new Error(`unknown fault "${name}"; known: ${FAULTS.map((x) => x.name).join(', ')}`);
  return f;
}
