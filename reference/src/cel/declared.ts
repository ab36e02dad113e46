// What the evaluator declares beyond Kubernetes 1.28's expression environment (the one a new
// expression is compiled in: the standard library, the strings extension at version 0, the
// list, regex, URL and authorizer libraries; no optional types, no `cel.bind`, no extension of
// bytes), so that using it is refused as 1.28 refuses it: an undeclared reference.
import type { Environment } from '@marcbachmann/cel-js';

/** Functions of the evaluator that 1.28 does not declare (bytes helpers, optional values, bind). */
const NOT_DECLARED = new Set([
  'at',
  'base64',
  'hex',
  'json',
  'hasValue',
  'value',
  'or',
  'orValue',
  'of',
  'none',
  'bind',
]);

/** Types of the evaluator's constants that 1.28 does not declare (`cel` of `cel.bind`, `optional` of `optional.of`). */
export const HIDDEN_NAMESPACES: ReadonlySet<string> = new Set(['CelNamespace', 'OptionalNamespace']);

/** Functions 1.28 declares with no method form, which the evaluator has one of (`bytes.string()`). */
export const NO_METHOD_FORM: ReadonlySet<string> = new Set(['string']);

const declared = new WeakMap<Environment, ReadonlySet<string>>();

/**
 * The names of the functions an environment declares as 1.28 would: its own, less those above
 * and less the macros (a macro's name with the wrong number of arguments is no function).
 */
export function declaredFunctions(env: Environment): ReadonlySet<string> {
  let names = declared.get(env);
  if (!names) {
    const out = new Set<string>();
    for (const f of env.getDefinitions().functions) {
      if (NOT_DECLARED.has(f.name) || f.params.some((p) => p.type === 'ast')) continue;
      out.add(f.name);
    }
    names = out;
    declared.set(env, names);
  }
  return names;
}
