// Admission: which plugins run (checked against the catalog), their configuration file (loaded
// once to check it) and DefaultTolerationSeconds' two flags.
import { loadAdmissionConfig } from '../admission/config-file.ts';
import { enabledPlugins } from '../admission/plugins/catalog.ts';
import { asUsageError, fileFlag, intFlag, type OptionSection, splitList } from './flags.ts';

export const admissionOptions: OptionSection = {
  flags: {
    'enable-admission-plugins': { type: 'string', multiple: true },
    'disable-admission-plugins': { type: 'string', multiple: true },
    'admission-control-config-file': { type: 'string' },
    'default-not-ready-toleration-seconds': { type: 'string' },
    'default-unreachable-toleration-seconds': { type: 'string' },
  },
  usage: `  --enable-admission-plugins LIST
                             admission plugins to turn on beside the default-enabled ones
                             (comma-separated, any order; they run in the server's fixed order)
  --disable-admission-plugins LIST
                             admission plugins to turn off, default-enabled ones included
  --admission-control-config-file PATH
                             AdmissionConfiguration (apiserver.config.orch.io/v1) with each
                             plugin's configuration, inline or in a file its entry names
  --default-not-ready-toleration-seconds N
                             tolerationSeconds of the not-ready toleration DefaultTolerationSeconds
                             adds to pods that lack one (default 300)
  --default-unreachable-toleration-seconds N
                             the same for the unreachable toleration (default 300)
`,
  parse({ values, str, cwd, options }) {
    const enable = splitList(values['enable-admission-plugins'] as string[] | undefined) ?? [];
    const disable = splitList(values['disable-admission-plugins'] as string[] | undefined) ?? [];
    asUsageError('', () => enabledPlugins(enable, disable));
    if (enable.length) options.enableAdmissionPlugins = enable;
    if (disable.length) options.disableAdmissionPlugins = disable;
    for (const [flag, key] of [
      ['default-not-ready-toleration-seconds', 'defaultNotReadyTolerationSeconds'],
      ['default-unreachable-toleration-seconds', 'defaultUnreachableTolerationSeconds'],
    ] as const) {
      const n = intFlag(flag, str(flag), 0, Number.MAX_SAFE_INTEGER);
      if (n !== undefined) options[key] = n;
    }
    const file = str('admission-control-config-file');
    if (file !== undefined) {
      const path = fileFlag('admission-control-config-file', file, cwd);
      options.admissionControlConfigFile = path;
      asUsageError('', () => loadAdmissionConfig(path));
    }
  },
};
