// --runtime-config: which built-in group versions and resources are served.
import { parseRuntimeConfig, RuntimeConfigError } from '../registry/runtime-config.ts';
import { type OptionSection, UsageError } from './flags.ts';

export const apiEnablementOptions: OptionSection = {
  flags: { 'runtime-config': { type: 'string', multiple: true } },
  usage: `  --runtime-config LIST      key[=true|false] pairs switching built-in APIs on or off: <group>/<version>
                             (e.g. apps/v1=false), <group>/<version>/<resource> (e.g.
                             apps/v1/deployments=false), v1 or api/v1 (the core group, which cannot
                             be switched off), api/all, api/ga, api/beta, api/alpha. Default: GA
                             versions on, alpha off, beta off except the flowcontrol v1beta2/v1beta3
                             resources (as 1.28) and the authentication v1beta1 reviews (doc3)
`,
  parse({ values, options, warnings }) {
    const rc = (values['runtime-config'] as string[] | undefined) ?? [];
    if (!rc.length) return;
    // the form here; the group versions and resources it names are checked when the server is built
    options.runtimeConfig = rc.join(',');
    try {
      warnings.push(...parseRuntimeConfig(options.runtimeConfig).warnings);
    } catch (e) {
      if (e instanceof RuntimeConfigError) throw new UsageError(`--runtime-config: ${e.message}`);
      throw e;
    }
  },
};
