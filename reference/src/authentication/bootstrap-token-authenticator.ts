// Bootstrap tokens as bearer tokens (`--enable-bootstrap-token-auth`): a token shaped
// `<id>.<secret>` names the secret `bootstrap-token-<id>` in the system namespace. It
// authenticates as system:bootstrap:<id>, in system:bootstrappers and the secret's
// auth-extra-groups, only when that secret is a live `bootstrap.orch.io/token` secret whose
// token-id and token-secret match, that is not expired, has no invalid extra group and says
// usage-bootstrap-authentication "true". A token of another shape is not this method's.
import { timingSafeEqual } from 'node:crypto';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_PREFIX,
  BOOTSTRAP_TOKEN_TYPE,
  BOOTSTRAP_USER_PREFIX,
  bootstrapGroups,
  hasExpired,
  parseBootstrapToken,
  secretValue,
} from '../registry/bootstrap-token.ts';
import type { Registry } from '../registry/registry.ts';
import {
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  NOT_MINE,
  bearerToken,
} from './types.ts';

const refuse = (message: string): AuthenticationResult => ({ status: 'error', message });

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class BootstrapTokenAuthenticator implements Authenticator {
  readonly name = 'bootstrap-token';

  constructor(
    private readonly registry: Registry,
    private readonly now: () => number = Date.now,
  ) {}

  authenticate(r: AuthenticationRequest): AuthenticationResult {
    const token = bearerToken(r);
    const parsed = token === undefined ? undefined : parseBootstrapToken(token);
    if (!parsed) return NOT_MINE;
    const name = BOOTSTRAP_TOKEN_SECRET_PREFIX + parsed.id;
    const secret = this.registry
      .byResource('', 'secrets')
      ?.store.getStored(BOOTSTRAP_TOKEN_NAMESPACE, name)?.obj;
    const which = `bootstrap token secret ${BOOTSTRAP_TOKEN_NAMESPACE}/${name}`;
    if (!secret) return refuse(`${which} not found`);
    if (secret.metadata.deletionTimestamp) return refuse(`${which} is deleted and awaiting removal`);
    if (secret.type !== BOOTSTRAP_TOKEN_TYPE || !secret.data)
      return refuse(`${which} has invalid type, expected ${BOOTSTRAP_TOKEN_TYPE}`);
    if (!sameText(secretValue(secret, 'token-secret'), parsed.secret))
      return refuse(`${which} has invalid value for key token-secret`);
    if (secretValue(secret, 'token-id') !== parsed.id)
      return refuse(`${which} has invalid value for key token-id`);
    if (hasExpired(secret, this.now())) return refuse(`${which} has expired`);
    if (secretValue(secret, 'usage-bootstrap-authentication') !== 'true')
      return refuse(`${which} is not marked usage-bootstrap-authentication=true`);
    const groups = bootstrapGroups(secret);
    if (typeof groups === 'string') return refuse(`${which} has invalid value for key ${groups}`);
    return { status: 'user', user: { username: BOOTSTRAP_USER_PREFIX + parsed.id, groups } };
  }
}
