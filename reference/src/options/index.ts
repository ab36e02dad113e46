// The flags of `serve`, assembled from the components' option sections. The sections are
// listed in the order the help text shows them, which is also the order their flags are
// checked in (with several wrong flags, the error names the first in this order).
import { parseArgs } from 'node:util';
import type { ServerOptions } from '../config.ts';
import { adminOptions } from './admin.ts';
import { admissionOptions } from './admission.ts';
import { apiEnablementOptions } from './api-enablement.ts';
import { auditOptions } from './audit.ts';
import { anonymousOptions, authenticationOptions, bootstrapTokenOptions } from './authentication.ts';
import { authorizationOptions } from './authorization.ts';
import { csrSigningOptions } from './certificates.ts';
import { controllerOptions } from './controllers.ts';
import { dialectOptions } from './dialect.ts';
import { etcdConnectionOptions, etcdServersOptions } from './etcd.ts';
import { featureGateOptions } from './features.ts';
import {
  type FlagValues,
  type OptionSection,
  type ParseContext,
  type ServeSettings,
  UsageError,
} from './flags.ts';
import { exitWithParentOptions, lifecycleOptions } from './lifecycle.ts';
import { loggingOptions } from './logging.ts';
import { metricsOptions } from './metrics.ts';
import { serviceAccountOptions } from './service-accounts.ts';
import { insecureServingOptions, servingOptions } from './serving.ts';
import { historyOptions, localStorageOptions } from './storage.ts';
import { oidcOptions, tokenWebhookOptions } from './token-authenticators.ts';

const SECTIONS: OptionSection[] = [
  servingOptions,
  localStorageOptions,
  insecureServingOptions,
  dialectOptions,
  featureGateOptions,
  apiEnablementOptions,
  etcdServersOptions,
  exitWithParentOptions,
  etcdConnectionOptions,
  historyOptions,
  lifecycleOptions,
  adminOptions,
  auditOptions,
  authenticationOptions,
  csrSigningOptions,
  serviceAccountOptions,
  bootstrapTokenOptions,
  controllerOptions,
  oidcOptions,
  tokenWebhookOptions,
  authorizationOptions,
  anonymousOptions,
  admissionOptions,
  metricsOptions,
  loggingOptions,
];

const SERVE_FLAGS = Object.assign({}, ...SECTIONS.map((s) => s.flags), {
  help: { type: 'boolean', short: 'h' },
} as const);

export const SERVE_USAGE = `Usage: orch-conformance serve [flags]
       npm run server -- [flags]

Runs the orch reference server standalone, writes a kubeconfig for it and prints its URL,
the admin token and the kubeconfig path.

Flags:
${SECTIONS.map((s) => s.usage).join('')}  -h, --help                 show this help
`;

/** Everything `serve` needs, resolved from the flags. */
export interface ServeConfig {
  options: Partial<ServerOptions>;
  /** Absolute path of the kubeconfig to write. */
  kubeconfigPath: string;
  /** An explicit `--token` (otherwise the kept or a generated one). */
  token?: string;
  /** Warnings to print at start (deprecated or GA feature gates set, deprecated runtime-config keys). */
  warnings?: string[];
  /** `--etcd`: start a private etcd child process for the store, stopped with the server. */
  startEtcd?: boolean;
  /** `--exit-with-parent`: stop (as on SIGTERM) once the process that started the server ends. */
  exitWithParent?: boolean;
  /** `--quiet`: no banner; the kubeconfig, written once the server answers, says it is ready. */
  quiet?: boolean;
}

/** Parses the flags of `serve` (without the word `serve`); undefined when help was asked for. */
export function parseServeArgs(argv: string[], cwd = process.cwd()): ServeConfig | undefined {
  let values: FlagValues;
  try {
    values = parseArgs({ args: argv, options: SERVE_FLAGS, strict: true, allowPositionals: false })
      .values as FlagValues;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return undefined;
  const serve: ServeSettings = {};
  const ctx: ParseContext = {
    values,
    cwd,
    options: {},
    warnings: [],
    serve,
    str: (k) => values[k] as string | undefined,
  };
  for (const section of SECTIONS) section.parse(ctx);
  return {
    options: ctx.options,
    kubeconfigPath: serve.kubeconfigPath!,
    token: serve.token,
    warnings: ctx.warnings,
    startEtcd: serve.startEtcd,
    exitWithParent: serve.exitWithParent,
    quiet: serve.quiet,
  };
}
