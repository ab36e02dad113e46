// The expression environment of validating admission policies, as Kubernetes 1.28 declares it:
// `object`, `oldObject`, `params` and `namespaceObject` dynamic, `request` the typed review
// request, `authorizer` (not for message expressions), and `variables` holding the policy's
// composition variables (each may use the ones declared before it). Used when a policy is
// written (its expressions must compile and have the right result type) and when it runs.
import type { Environment } from '@marcbachmann/cel-js';
import { CompileCache } from '../../cel/cache.ts';
import { type Compiled, compile } from '../../cel/compile.ts';
import { newEnvironment } from '../../cel/environment.ts';
import { RESERVED_WORDS } from '../../cel/escaping.ts';
import { AUTHORIZER_TYPE } from '../../cel/library-authorizer.ts';
import { type DeclType, declare, type MessageDeclaration, PLAIN_NAMES } from '../../cel/types.ts';
import type { ValueSchema } from '../../schema/validate.ts';
import { ADMISSION_REQUEST_SCHEMA, AUTHORIZER_DECL, DYN_DECL } from './admission-cel.ts';

/** The type of the `variables` value (one field per composition variable). */
export const VARIABLES_TYPE = 'orch.PolicyVariables';
const REQUEST_TYPE = 'orch.PolicyAdmissionRequest';

/**
 * The value class of `variables`: the computed variables, and the error of each that failed
 * (raised where an expression reads it). The evaluator knows values by this exact class.
 */
export class VariablesValue extends Map<string, unknown> {
  readonly errors = new Map<string, string>();
  override get(name: string): unknown {
    const e = this.errors.get(name);
    if (e !== undefined) throw new Error(e);
    return super.get(name);
  }
  override has(name: string): boolean {
    return super.has(name) || this.errors.has(name);
  }
}

export interface PolicyVariables {
  /** Whether the policy has a paramKind (`params` declared). */
  hasParams: boolean;
  /** Whether `authorizer` is declared (every expression but message expressions). */
  hasAuthorizer: boolean;
  /** The composition variables visible to the expression, in declaration order. */
  variables: readonly string[];
}

/** The result type an expression must have. */
export type Want = 'bool' | 'string' | 'string-or-null' | 'any';

let requestDecl: DeclType | undefined;

/** The declared type of `request` (values are made with toCel against it). */
export function requestType(): DeclType {
  if (!requestDecl) requestDecl = declare(ADMISSION_REQUEST_SCHEMA, REQUEST_TYPE, [], false, PLAIN_NAMES);
  return requestDecl;
}

interface PolicyEnv {
  env: Environment;
  vars: Map<string, DeclType>;
}

const environments = new CompileCache<PolicyEnv>(64);

/** Schemas that type `object` and `oldObject` (a resource's), and `params` (the parameter kind's). */
export interface TypedSchemas {
  object?: ValueSchema;
  params?: ValueSchema;
}

function build(o: PolicyVariables, typed: TypedSchemas = {}): PolicyEnv {
  const env = newEnvironment();
  const messages: MessageDeclaration[] = [];
  const request = declare(ADMISSION_REQUEST_SCHEMA, REQUEST_TYPE, messages, false, PLAIN_NAMES);
  requestDecl ??= request;
  const object = typed.object ? declare(typed.object, 'Object', messages, true) : DYN_DECL;
  const params = typed.params ? declare(typed.params, 'Params', messages, true) : DYN_DECL;
  for (const m of messages) env.registerType(m.name, { ctor: m.ctor, fields: m.fields });
  const vars = new Map<string, DeclType>();
  for (const [name, decl] of [
    ['object', object],
    ['oldObject', object],
    ['namespaceObject', DYN_DECL],
  ] as const) {
    env.registerVariable(name, decl.name);
    vars.set(name, decl);
  }
  env.registerVariable('request', request.name);
  vars.set('request', request);
  if (o.hasParams) {
    env.registerVariable('params', params.name);
    vars.set('params', params);
  }
  if (o.hasAuthorizer) {
    env.registerVariable('authorizer', AUTHORIZER_TYPE);
    vars.set('authorizer', AUTHORIZER_DECL);
  }
  const fields: Record<string, string> = {};
  for (const v of o.variables) fields[v] = 'dyn';
  env.registerType(VARIABLES_TYPE, { ctor: VariablesValue, fields });
  env.registerVariable('variables', VARIABLES_TYPE);
  vars.set('variables', { ...DYN_DECL, name: VARIABLES_TYPE });
  return { env, vars };
}

const WANTED: Record<Exclude<Want, 'any'>, { types: string[]; reason: string }> = {
  bool: { types: ['bool'], reason: 'must evaluate to bool' },
  string: { types: ['string'], reason: 'must evaluate to string' },
  'string-or-null': { types: ['string', 'null'], reason: 'must evaluate to one of [string null_type]' },
};

/**
 * Compiles a policy expression; `error` is Kubernetes' detail (`compilation failed: ERROR: ...`,
 * `must evaluate to bool`). The checked type must be the one wanted: as in Kubernetes 1.28, an
 * expression of no known type (`dyn`, a field of `object`) is not a bool or a string.
 */
export function compilePolicyExpression(source: string, o: PolicyVariables, want: Want): Compiled {
  const key = JSON.stringify([o.hasParams, o.hasAuthorizer, o.variables]);
  const { env, vars } = environments.get(key, () => build(o));
  const c = compile(env, source, vars);
  if ('error' in c) return { error: `compilation failed: ${c.error}` };
  if (want !== 'any') {
    const w = WANTED[want];
    if (!w.types.includes(c.program.type)) return { error: w.reason };
  }
  return c;
}

/**
 * A compiler of expressions with `object`, `oldObject` and `params` typed by schemas (the policy
 * status controller's type checking); an error is the language's own report.
 */
export function typedCompiler(o: PolicyVariables, typed: TypedSchemas): (source: string) => Compiled {
  const { env, vars } = build(o, typed);
  return (source) => compile(env, source, vars);
}

/** A composition variable's name: an identifier of the language that is not a reserved word. */
export function isCelIdentifier(name: string): boolean {
  return /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !RESERVED_WORDS.has(name);
}
