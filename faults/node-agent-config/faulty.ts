// A deliberately faulty node agent configuration command for the fault meta test
// (faults/test/node-config-meta.test.ts), called in the suite's worker with `validate|default
// CLASS FILE`: it behaves as `orch-conformance node-config validate|default FILE` with the rules of CLASS
// left out (`none` leaves nothing out: the clean command); `default defaults FILE` prints the
// file as loaded, without defaults; `validate original-names FILE` is too strict instead: it
// also refuses the renamed fields (agentCgroups, ...), as a validator that kept the original
// interface's names would. The default export is the command as a function (what the suite's
// `in-process:` commands call, suites/node-agent-config/commands.ts).
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import {
  formatFieldError,
  loadNodeConfig,
  RENAMED,
  RULE_CLASSES,
  type RuleClass,
} from '../../reference/src/nodeagent/index.ts';

interface Sink {
  write(s: string): unknown;
}

const MODES = ['none', 'defaults', 'original-names'];

/** The faulty command: `argv` is `validate|default CLASS FILE`; answers the exit code. */
export default function faultyNodeConfig(argv: string[], out: Sink, err: Sink): number {
  const [cmd, cls, file] = argv;
  if ((cmd !== 'validate' && cmd !== 'default') || !cls || !file) {
    err.write('usage: faults/node-agent-config/faulty.ts validate|default CLASS|none|defaults FILE\n');
    return 2;
  }
  if (!MODES.includes(cls) && !(RULE_CLASSES as readonly string[]).includes(cls)) {
    err.write(`unknown rule class "${cls}" (${RULE_CLASSES.join(', ')})\n`);
    return 2;
  }
  const text = readFileSync(file, 'utf8');
  const without = new Set<RuleClass>(RULE_CLASSES.includes(cls as RuleClass) ? [cls as RuleClass] : []);
  const loaded = loadNodeConfig(text, { without });
  // the fields given in the file (not the defaulted configuration: defaulting adds orchAPIQPS ...)
  const given = cls === 'original-names' && loaded.config ? (parse(text) as Record<string, unknown>) : {};
  for (const renamed of Object.values(RENAMED))
    if (given[renamed] !== undefined)
      loaded.errors.push({ path: renamed, type: 'Forbidden', detail: `unknown field "${renamed}"` });
  if (loaded.errors.length) {
    for (const e of loaded.errors) err.write(`${formatFieldError(e)}\n`);
    return 1;
  }
  if (cmd === 'validate') out.write(`${file}: valid\n`);
  else out.write(stringify(cls === 'defaults' ? parse(text) : loaded.config));
  return 0;
}
