// Exec credential plugins (doc3, "Credential plugin"): run the command, read an
// ExecCredential (`client.authentication.orch.io/v1` or `v1beta1`) from its standard output,
// cache it until `status.expirationTimestamp`, or until the server answers 401.
import { execFile } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';

export interface ExecConfig {
  command: string;
  apiVersion: string;
  args?: string[];
  env?: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

export interface ExecResult {
  token?: string;
  cert?: string;
  key?: string;
  expires?: number;
}

const GROUP_VERSIONS = ['client.authentication.orch.io/v1', 'client.authentication.orch.io/v1beta1'];
/** The Kubernetes words for the same versions (dialect kubernetes). */
const K8S_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

export class ExecCredentialSource {
  private cached?: ExecResult;

  constructor(
    readonly config: ExecConfig,
    private readonly baseDir: string,
    private readonly cluster: { server: string; 'certificate-authority-data'?: string; 'insecure-skip-tls-verify'?: boolean },
    private readonly now: () => number = Date.now,
  ) {
    const v = config.apiVersion;
    if (!GROUP_VERSIONS.includes(v) && !K8S_VERSIONS.includes(v))
      throw new Error(`exec plugin: unsupported apiVersion "${v}" (want ${GROUP_VERSIONS.join(' or ')})`);
    if (!config.command) throw new Error('exec plugin: command is required');
    if (v.endsWith('/v1') && !config.interactiveMode) throw new Error('exec plugin: interactiveMode is required in v1');
  }

  /** Drops the cached credential (after a 401). */
  invalidate(): void {
    this.cached = undefined;
  }

  async get(): Promise<ExecResult> {
    if (this.cached && (this.cached.expires === undefined || this.cached.expires > this.now())) return this.cached;
    this.cached = await this.run();
    return this.cached;
  }

  private run(): Promise<ExecResult> {
    const c = this.config;
    const cmd = c.command.includes('/') && !isAbsolute(c.command) ? resolve(this.baseDir, c.command) : c.command;
    const k8s = K8S_VERSIONS.includes(c.apiVersion);
    const infoVar = k8s ? 'KUBERNETES_EXEC_INFO' : 'ORCH_EXEC_INFO';
    const input: Record<string, unknown> = {
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false } as Record<string, unknown>,
    };
    if (c.provideClusterInfo) (input.spec as Record<string, unknown>).cluster = { ...this.cluster };
    const env: NodeJS.ProcessEnv = { ...process.env, [infoVar]: JSON.stringify(input) };
    for (const e of c.env ?? []) env[e.name] = e.value;
    return new Promise((resolvePromise, reject) => {
      execFile(cmd, c.args ?? [], { env, timeout: 30_000, maxBuffer: 1024 * 1024 }, (err, stdout) => {
        if (err) {
          reject(new Error(`exec plugin "${c.command}" failed: ${err.message}${c.installHint ? `\n${c.installHint}` : ''}`));
          return;
        }
        try {
          resolvePromise(this.parse(stdout));
        } catch (e) {
          reject(e);
        }
      });
    });
  }

  parse(stdout: string): ExecResult {
    let out: { apiVersion?: string; kind?: string; status?: Record<string, string> };
    try {
      out = JSON.parse(stdout);
    } catch {
      throw new Error('exec plugin: output is not a JSON ExecCredential');
    }
    if (out.kind !== 'ExecCredential') throw new Error(`exec plugin: kind is "${out.kind}", want ExecCredential`);
    if (out.apiVersion !== this.config.apiVersion)
      throw new Error(`exec plugin: answered in "${out.apiVersion}", want "${this.config.apiVersion}"`);
    const s = out.status ?? {};
    const r: ExecResult = {};
    if (s.token) r.token = s.token;
    if (s.clientCertificateData || s.clientKeyData) {
      if (!s.clientCertificateData || !s.clientKeyData)
        throw new Error('exec plugin: clientCertificateData and clientKeyData must be given together');
      r.cert = s.clientCertificateData;
      r.key = s.clientKeyData;
    }
    if (!r.token && !r.cert) throw new Error('exec plugin: status has neither token nor client certificate');
    if (s.expirationTimestamp) {
      const t = Date.parse(s.expirationTimestamp);
      if (!Number.isFinite(t)) throw new Error(`exec plugin: bad expirationTimestamp "${s.expirationTimestamp}"`);
      r.expires = t;
    }
    return r;
  }
}
