// How the server authenticates to the webhooks it calls (doc3 "Webhook contract"): the webhook
// plugins' configuration (`--admission-control-config-file`, kind WebhookAdmissionConfiguration
// of apiserver.config.orch.io/v1, or the older WebhookAdmission of apiserver.orch.io/v1alpha1)
// names a connection file (`orchConfigFile`; Kubernetes' name `kubeConfigFile` is read too,
// an absolute path) whose user entries are picked by the webhook's address, as Kubernetes
// 1.28 picks them: the exact name (`<service>.<namespace>.svc`, with `:<port>` when not 443,
// or the URL's host and port), then `*.`-prefixed names dropping one label at a time, then the
// same without a `:443`, then `*`, then the current context's user; none: no credentials.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { yaml } from '../../util/yaml.ts';

export interface Credentials {
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  token?: string;
  username?: string;
  password?: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const KINDS = [
  ['apiserver.config.orch.io/v1', 'WebhookAdmissionConfiguration'],
  ['apiserver.orch.io/v1alpha1', 'WebhookAdmission'],
];

export class CredentialResolver {
  constructor(
    private readonly users: ReadonlyMap<string, Credentials> = new Map(),
    private readonly current?: Credentials,
  ) {}

  /** For a `url` webhook: the URL's host and port as written. */
  forHost(hostPort: string): Credentials | undefined {
    return this.resolve(hostPort);
  }

  forService(name: string, namespace: string, port: number): Credentials | undefined {
    return this.resolve(port === 443 ? `${name}.${namespace}.svc` : `${name}.${namespace}.svc:${port}`);
  }

  private wildcard(target: string): Credentials | undefined {
    const exact = this.users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const hit = this.users.get(`*.${steps.slice(i).join('.')}`);
      if (hit) return hit;
    }
    return undefined;
  }

  private resolve(target: string): Credentials | undefined {
    const hit =
      this.wildcard(target) ?? (target.endsWith(':443') ? this.wildcard(target.slice(0, -4)) : undefined);
    return hit ?? this.users.get('*') ?? this.current;
  }
}

function material(
  user: Rec,
  dataKey: string,
  fileKey: string,
  dir: string,
  where: string,
): string | undefined {
  const data = user[dataKey];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
  const path = user[fileKey];
  if (typeof path !== 'string' || !path) return undefined;
  try {
    return readFileSync(resolve(dir, path), 'utf8');
  } catch (e) {
    throw new Error(`${where}.${fileKey}: ${(e as Error).message}`);
  }
}

/** The user entries of a connection file; throws an Error naming the file and the entry. */
export function loadConnectionUsers(file: string): CredentialResolver {
  let doc: unknown;
  try {
    doc = yaml().parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  if (!isRec(doc)) throw new Error(`${file}: not a connection file`);
  const dir = dirname(file);
  const users = new Map<string, Credentials>();
  const list = Array.isArray(doc.users) ? doc.users : [];
  list.forEach((entry: unknown, i) => {
    const where = `${file}: users[${i}]`;
    if (!isRec(entry) || typeof entry.name !== 'string') throw new Error(`${where}: name is required`);
    const u = isRec(entry.user) ? entry.user : {};
    const c: Credentials = {
      cert: material(u, 'client-certificate-data', 'client-certificate', dir, `${where}.user`),
      key: material(u, 'client-key-data', 'client-key', dir, `${where}.user`),
    };
    if (!c.cert !== !c.key)
      throw new Error(`${where}.user: a client certificate needs its key, and a key its certificate`);
    if (typeof u.token === 'string' && u.token) c.token = u.token;
    else if (typeof u.tokenFile === 'string' && u.tokenFile)
      c.token = material({ f: u.tokenFile }, '', 'f', dir, `${where}.user`)?.trim();
    if (typeof u.username === 'string' && u.username) {
      c.username = u.username;
      c.password = typeof u.password === 'string' ? u.password : '';
    }
    users.set(entry.name, c);
  });
  let current: Credentials | undefined;
  const ctxName = doc['current-context'];
  if (typeof ctxName === 'string' && Array.isArray(doc.contexts)) {
    const ctx = doc.contexts.find((c: unknown) => isRec(c) && c.name === ctxName) as Rec | undefined;
    const userName = isRec(ctx?.context) ? ctx.context.user : undefined;
    if (typeof userName === 'string') current = users.get(userName);
  }
  return new CredentialResolver(users, current);
}

/**
 * The credentials of one webhook plugin from its configuration entry (undefined: none given).
 * Throws an Error that names the plugin on a configuration it cannot use.
 */
export function credentialsFromConfig(plugin: string, config: unknown): CredentialResolver {
  if (config === undefined || config === null) return new CredentialResolver();
  const at = `--admission-control-config-file: ${plugin}`;
  if (!isRec(config)) throw new Error(`${at}: the configuration must be an object`);
  if (config.kind !== undefined || config.apiVersion !== undefined) {
    const ok = KINDS.some(([v, k]) => config.apiVersion === v && config.kind === k);
    if (!ok)
      throw new Error(
        `${at}: the configuration is ${String(config.apiVersion)} ${String(config.kind)}, want ${KINDS.map(([v, k]) => `${v} ${k}`).join(' or ')}`,
      );
  }
  const file = config.orchConfigFile ?? config.kubeConfigFile;
  if (file === undefined || file === '') return new CredentialResolver();
  if (typeof file !== 'string') throw new Error(`${at}: orchConfigFile must be a string`);
  if (!isAbsolute(file)) throw new Error(`${at}: orchConfigFile "${file}" must be an absolute file path`);
  try {
    return loadConnectionUsers(file);
  } catch (e) {
    throw new Error(`${at}: ${(e as Error).message}`);
  }
}
