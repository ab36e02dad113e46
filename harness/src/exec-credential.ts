// Exec credential plugins (doc3, "Credential plugin"): run the command (a relative path with
// a directory part is resolved against the kubeconfig's directory; a bare name is looked up
// on PATH), give it an ExecCredential in ORCH_EXEC_INFO (KUBERNETES_EXEC_INFO in the
// Kubernetes dialect) with spec.interactive and, when provideClusterInfo is set, spec.cluster;
// read an ExecCredential (`client.authentication.orch.io/v1` or `v1beta1`, the configured
// one) from its standard output; cache it until `status.expirationTimestamp`, or, without
// one, until the server answers 401. interactiveMode: Never (standard input is not given to
// the plugin), IfAvailable (given when it is a terminal; the v1beta1 default), Always (the
// plugin needs a terminal: an error without one). A plugin that is not installed is an error
// carrying its installHint.
import { spawn } from 'node:child_process';
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

/** The cluster as the plugin sees it (spec.cluster). */
export interface ExecCluster {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  /** The cluster's `client.authentication.orch.io/exec` extension. */
  config?: unknown;
}

const GROUP_VERSIONS = ['client.authentication.orch.io/v1', 'client.authentication.orch.io/v1beta1'];
/** The Kubernetes words for the same versions (dialect kubernetes). */
const K8S_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
const MODES = ['Never', 'IfAvailable', 'Always'];
const TIMEOUT_MS = 30_000;

export class ExecCredentialSource {
  private cached?: ExecResult;
  private running?: Promise<ExecResult>;
  private readonly mode: 'Never' | 'IfAvailable' | 'Always';

  constructor(
    readonly config: ExecConfig,
    private readonly baseDir: string,
    private readonly cluster: ExecCluster,
    private readonly now: () => number = Date.now,
    /** Whether standard input is a terminal (a test may say). */
    private readonly stdinIsTerminal: () => boolean = () => process.stdin.isTTY === true,
  ) {
    const v = config.apiVersion;
    if (!GROUP_VERSIONS.includes(v) && !K8S_VERSIONS.includes(v))
      throw new Error(`exec plugin: unsupported apiVersion "${v}" (want ${GROUP_VERSIONS.join(' or ')})`);
    if (!config.command) throw new Error('exec plugin: command is required');
    if (v.endsWith('/v1') && !config.interactiveMode)
      throw new Error('exec plugin: interactiveMode is required in v1');
    if (config.interactiveMode !== undefined && !MODES.includes(config.interactiveMode))
      throw new Error(
        `exec plugin: invalid interactiveMode "${config.interactiveMode}" (want ${MODES.join(', ')})`,
      );
    this.mode = config.interactiveMode ?? 'IfAvailable';
  }

  /** Drops the cached credential (after a 401): the next get runs the plugin again. */
  invalidate(): void {
    this.cached = undefined;
  }

  /** The credential: the cached one while it lasts, else one run of the plugin (shared by concurrent callers). */
  async get(): Promise<ExecResult> {
    if (this.cached && (this.cached.expires === undefined || this.cached.expires > this.now()))
      return this.cached;
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    const r = await this.running;
    this.cached = r;
    return r;
  }

  /** The path the plugin runs from. */
  commandPath(): string {
    const c = this.config.command;
    return c.includes('/') && !isAbsolute(c) ? resolve(this.baseDir, c) : c;
  }

  private run(): Promise<ExecResult> {
    const c = this.config;
    const terminal = this.stdinIsTerminal();
    if (this.mode === 'Always' && !terminal)
      return Promise.reject(
        new Error('exec plugin cannot support interactive mode: standard input is not a terminal'),
      );
    const interactive = this.mode !== 'Never' && terminal;
    const k8s = K8S_VERSIONS.includes(c.apiVersion);
    const infoVar = k8s ? 'KUBERNETES_EXEC_INFO' : 'ORCH_EXEC_INFO';
    const spec: Record<string, unknown> = { interactive };
    if (c.provideClusterInfo) {
      const cluster: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(this.cluster)) if (v !== undefined) cluster[k] = v;
      spec.cluster = cluster;
    }
    const input = { apiVersion: c.apiVersion, kind: 'ExecCredential', spec };
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const e of c.env ?? []) env[e.name] = e.value;
    env[infoVar] = JSON.stringify(input);
    const cmd = this.commandPath();
    return new Promise((resolvePromise, reject) => {
      const child = spawn(cmd, c.args ?? [], {
        env,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'],
        timeout: TIMEOUT_MS,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT' || e.code === 'EACCES')
          reject(
            new Error(
              `exec: executable ${cmd} not found${e.code === 'EACCES' ? ' (or not executable)' : ''}` +
                '\n\nIt looks like you are trying to use a credential plugin that is not installed.' +
                (c.installHint ? `\n\n${c.installHint}` : ''),
            ),
          );
        else reject(new Error(`exec: executable ${cmd} failed: ${e.message}`));
      });
      child.on('close', (code, signal) => {
        if (code !== 0) {
          const stderr = Buffer.concat(err).toString('utf8').trim();
          const how = signal ? `was stopped by ${signal}` : `failed with exit code ${code}`;
          reject(new Error(`exec: executable ${cmd} ${how}${stderr ? `: ${stderr}` : ''}`));
          return;
        }
        try {
          resolvePromise(this.parse(Buffer.concat(out).toString('utf8')));
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
    if (out.kind !== 'ExecCredential')
      throw new Error(`exec plugin: kind is "${out.kind}", want ExecCredential`);
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
      if (!Number.isFinite(t))
        throw new Error(`exec plugin: bad expirationTimestamp "${s.expirationTimestamp}"`);
      r.expires = t;
    }
    return r;
  }
}
