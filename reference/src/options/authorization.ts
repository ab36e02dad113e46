// Who may do what: --authorization-mode and the Webhook mode's --authorization-webhook-*.
import { modesProblem } from '../authorization/configure.ts';
import { DEFAULTS } from '../config.ts';
import { durationFlag, fileFlag, type OptionSection, UsageError } from './flags.ts';

export const authorizationOptions: OptionSection = {
  flags: {
    'authorization-mode': { type: 'string' },
    'authorization-webhook-config-file': { type: 'string' },
    'authorization-webhook-version': { type: 'string' },
    'authorization-webhook-cache-authorized-ttl': { type: 'string' },
    'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
  },
  usage: `  --authorization-mode LIST  authorizers asked in order after system:masters: AlwaysAllow,
                             AlwaysDeny, RBAC, Webhook (default ${DEFAULTS.authorizationModes.join(',')})
  --authorization-webhook-config-file PATH
                             kubeconfig-format file naming the Webhook mode's webhook
  --authorization-webhook-version V
                             SubjectAccessReview version sent: v1 or v1beta1 (default v1beta1)
  --authorization-webhook-cache-authorized-ttl D
                             how long allowed answers are cached, e.g. 5m, 30s (default 5m)
  --authorization-webhook-cache-unauthorized-ttl D
                             how long other answers are cached (default 30s)
`,
  parse({ str, cwd, options }) {
    const modes = str('authorization-mode');
    if (modes !== undefined) {
      const list = modes.split(',').map((m) => m.trim());
      const problem = modesProblem(list.filter((m) => m !== '').length === list.length ? list : []);
      if (problem) throw new UsageError(`--authorization-mode: ${problem}`);
      options.authorizationModes = list;
    }
    const webhookFile = str('authorization-webhook-config-file');
    if (webhookFile !== undefined)
      options.authorizationWebhookConfigFile = fileFlag(
        'authorization-webhook-config-file',
        webhookFile,
        cwd,
      );
    if (
      (options.authorizationModes ?? DEFAULTS.authorizationModes).includes('Webhook') &&
      !options.authorizationWebhookConfigFile
    )
      throw new UsageError(
        '--authorization-mode: the Webhook mode needs --authorization-webhook-config-file',
      );
    const webhookVersion = str('authorization-webhook-version');
    if (webhookVersion !== undefined) {
      if (webhookVersion !== 'v1' && webhookVersion !== 'v1beta1')
        throw new UsageError(`--authorization-webhook-version: "${webhookVersion}" is not v1 or v1beta1`);
      options.authorizationWebhookVersion = webhookVersion;
    }
    for (const [flag, key] of [
      ['authorization-webhook-cache-authorized-ttl', 'authorizationWebhookCacheAuthorizedTtlMs'],
      ['authorization-webhook-cache-unauthorized-ttl', 'authorizationWebhookCacheUnauthorizedTtlMs'],
    ] as const) {
      const ms = durationFlag(flag, str(flag));
      if (ms !== undefined) options[key] = ms;
    }
  },
};
