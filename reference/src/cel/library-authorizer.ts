// The authorizer library of doc2 (Kubernetes 1.28's), for admission policies:
// `authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)].check(verb)`,
// `authorizer.path(p).check(httpVerb)`, `authorizer.serviceAccount(ns, name)`, and a Decision's
// `allowed()` and `reason()`. The server's authorizer is a function of the request attributes that
// answers now or later (a Promise). Evaluation is synchronous and deterministic, so an answer not
// known yet is collected, awaited, and the expression evaluated again with the answers known.
import type { Environment } from '@marcbachmann/cel-js';
import { evalError } from './errors.ts';

export interface AuthorizationAttributes {
  /** The user asked about (a service account's name); absent: the request's own user. */
  user?: string;
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Non-resource requests. */
  path?: string;
}

export interface AuthorizationDecision {
  allowed: boolean;
  reason: string;
}

export type AuthorizerFn = (
  attributes: AuthorizationAttributes,
) => AuthorizationDecision | Promise<AuthorizationDecision>;

export const AUTHORIZER_TYPE = 'orch.Authorizer';
const GROUP_CHECK = 'orch.GroupCheck';
const RESOURCE_CHECK = 'orch.ResourceCheck';
const PATH_CHECK = 'orch.PathCheck';
const DECISION = 'orch.Decision';

/** The resource a request is about (`authorizer.requestResource` checks it). */
export type RequestResource = Omit<AuthorizationAttributes, 'verb' | 'user' | 'path'>;

/** The answers of one evaluation (and its re-evaluations). */
export class AuthorizerSession {
  readonly answers = new Map<string, AuthorizationDecision>();
  readonly pending: Promise<void>[] = [];
  constructor(
    readonly fn: AuthorizerFn,
    readonly requestResource?: RequestResource,
  ) {}

  decide(attributes: AuthorizationAttributes): Decision {
    const key = JSON.stringify(attributes);
    const known = this.answers.get(key);
    if (known) return new Decision(known.allowed, known.reason);
    const answer = this.fn(attributes);
    if (answer instanceof Promise) {
      this.pending.push(
        answer.then(
          (a) => void this.answers.set(key, a),
          (e) => void this.answers.set(key, { allowed: false, reason: `error: ${(e as Error).message}` }),
        ),
      );
      return new Decision(false, '');
    }
    this.answers.set(key, answer);
    return new Decision(answer.allowed, answer.reason);
  }
}

export class Authorizer {
  constructor(
    readonly session: AuthorizerSession,
    readonly user?: string,
  ) {}

  /** `authorizer.requestResource`: a check of the request's own resource (absent outside a request). */
  get requestResource(): ResourceCheck | undefined {
    const r = this.session.requestResource;
    return r ? new ResourceCheck(this, r) : undefined;
  }
}

class GroupCheck {
  constructor(
    readonly authz: Authorizer,
    readonly group: string,
  ) {}
}

class ResourceCheck {
  constructor(
    readonly authz: Authorizer,
    readonly attrs: Omit<AuthorizationAttributes, 'verb' | 'user'>,
  ) {}
  with(k: 'subresource' | 'namespace' | 'name', v: string): ResourceCheck {
    return new ResourceCheck(this.authz, { ...this.attrs, [k]: v });
  }
}

class PathCheck {
  constructor(
    readonly authz: Authorizer,
    readonly path: string,
  ) {}
}

export class Decision {
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
  ) {}
}

const withUser = (a: Authorizer, attrs: AuthorizationAttributes): AuthorizationAttributes =>
  a.user === undefined ? attrs : { user: a.user, ...attrs };

export function registerAuthorizerLibrary(env: Environment): void {
  env.registerType(AUTHORIZER_TYPE, Authorizer);
  env.registerType(GROUP_CHECK, GroupCheck);
  env.registerType(RESOURCE_CHECK, ResourceCheck);
  env.registerType(PATH_CHECK, PathCheck);
  env.registerType(DECISION, Decision);
  env.registerFunction(
    `${AUTHORIZER_TYPE}.group(string): ${GROUP_CHECK}`,
    (a: Authorizer, g: string) => new GroupCheck(a, g),
  );
  env.registerFunction(
    `${AUTHORIZER_TYPE}.serviceAccount(string, string): ${AUTHORIZER_TYPE}`,
    (a: Authorizer, ns: string, name: string) =>
      new Authorizer(a.session, `system:serviceaccount:${ns}:${name}`),
  );
  env.registerFunction(
    `${AUTHORIZER_TYPE}.path(string): ${PATH_CHECK}`,
    (a: Authorizer, p: string) => new PathCheck(a, p),
  );
  env.registerFunction(
    `${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`,
    (g: GroupCheck, r: string) => new ResourceCheck(g.authz, { group: g.group, resource: r }),
  );
  for (const k of ['subresource', 'namespace', 'name'] as const)
    env.registerFunction(`${RESOURCE_CHECK}.${k}(string): ${RESOURCE_CHECK}`, (c: ResourceCheck, v: string) =>
      c.with(k, v),
    );
  env.registerFunction(`${RESOURCE_CHECK}.check(string): ${DECISION}`, (c: ResourceCheck, verb: string) => {
    if (!verb) throw evalError('verb must not be empty');
    return c.authz.session.decide(withUser(c.authz, { verb, ...c.attrs }));
  });
  env.registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, (c: PathCheck, verb: string) => {
    if (!verb) throw evalError('verb must not be empty');
    return c.authz.session.decide(withUser(c.authz, { verb, path: c.path }));
  });
  env.registerFunction(`${DECISION}.allowed(): bool`, (d: Decision) => d.allowed);
  env.registerFunction(`${DECISION}.reason(): string`, (d: Decision) => d.reason);
}

/** How many rounds of answers one evaluation may wait for (each round awaits every pending check). */
const MAX_ROUNDS = 16;

/**
 * Evaluates `run` with an authorizer value; when checks answer later, awaits them and evaluates
 * again with the answers known, until no check is pending. Synchronous answers need one run.
 */
export async function evaluateWithAuthorizer<T>(
  fn: AuthorizerFn,
  run: (authorizer: Authorizer) => T,
  requestResource?: RequestResource,
): Promise<T> {
  const session = new AuthorizerSession(fn, requestResource);
  for (let round = 0; ; round++) {
    const result = run(new Authorizer(session));
    if (session.pending.length === 0) return result;
    if (round >= MAX_ROUNDS) throw evalError('authorization checks did not settle');
    const waiting = session.pending.splice(0);
    await Promise.all(waiting);
  }
}
