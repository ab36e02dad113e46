// --controllers: which controllers run, as Kubernetes' controller manager reads the flag.
import { CONTROLLERS, KNOWN_CONTROLLERS } from '../controllers/catalog.ts';
import { listFlag, type OptionSection, UsageError } from './flags.ts';

export const controllerOptions: OptionSection = {
  flags: { controllers: { type: 'string', multiple: true } },
  usage: `  --controllers LIST         controllers to run, as Kubernetes' controller manager reads the flag:
                             * (the default set), a name to add one, -name to remove one (the first
                             entry naming a controller decides); namespace, serviceaccount,
                             root-ca-cert-publisher, garbagecollector, deployment and replicaset
                             are on by default, tokencleaner and bootstrapsigner off: a cluster
                             runs --controllers=*,tokencleaner,bootstrapsigner
`,
  // `*`, known names (short or canonical) and `-name`
  parse({ values, options }) {
    const list = listFlag('controllers', values.controllers as string[] | undefined);
    if (!list) return;
    for (const c of list) {
      const name = c.replace(/^-/, '');
      if (c !== '*' && !KNOWN_CONTROLLERS.includes(name))
        throw new UsageError(
          `--controllers: "${name}" is not in the list of known controllers (${CONTROLLERS.map((k) => k.name).join(', ')})`,
        );
    }
    options.controllers = list;
  },
};
