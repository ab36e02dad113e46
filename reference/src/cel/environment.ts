// The expression environment: the evaluator's standard library plus the orch libraries of doc2
// (list, regex, URL, authorizer) and Kubernetes 1.28's strings extension (version 0). What the
// evaluator declares beyond Kubernetes 1.28's environment is refused when checking (declared.ts).
// Built once; each user (a definition version, a policy) takes a clone and declares its own
// types and variables on it.
import { Environment } from '@marcbachmann/cel-js';
import { registerAuthorizerLibrary } from './library-authorizer.ts';
import { registerListLibrary } from './library-list.ts';
import { registerRegexLibrary } from './library-regex.ts';
import { registerStandardGaps } from './library-standard.ts';
import { registerStringsLibrary } from './library-strings.ts';
import { registerUrlLibrary } from './library-url.ts';

let base: Environment | undefined;

function build(): Environment {
  // Kubernetes 1.28 wants list and map literals homogeneous: check.ts refuses a mixed one as
  // cel-go does (the evaluator's own rule is stricter: an element of no known type is refused)
  const env = new Environment({ homogeneousAggregateLiterals: false });
  registerStandardGaps(env);
  registerListLibrary(env);
  registerRegexLibrary(env);
  registerStringsLibrary(env);
  registerUrlLibrary(env);
  registerAuthorizerLibrary(env);
  return env;
}

/** A new environment with every library, open for declarations. */
export function newEnvironment(): Environment {
  base ??= build();
  return base.clone();
}
