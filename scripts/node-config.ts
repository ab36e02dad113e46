// `orch-conformance node-config validate|default FILE` and `node-config schema`: the reference
// implementation's node agent configuration library (reference/src/nodeagent) on the command
// line. validate exits 0 on a valid file and 1 on an invalid one, printing one error per line
// with its field path; default prints the defaulted configuration as YAML (or the errors, as
// validate); schema prints the JSON schema generated from the field definitions. A usage
// error (or a file that cannot be read) exits 2.
import { readFileSync, statSync } from 'node:fs';
import { stringify } from 'yaml';
import {
  formatFieldError,
  loadNodeConfig,
  MAX_BYTES,
  nodeConfigJsonSchema,
} from '../reference/src/nodeagent/index.ts';

export const NODE_CONFIG_HELP = `Usage: orch-conformance node-config <command> [FILE]

Node agent configuration files (kind NodeAgentConfiguration, CredentialProviderConfig or
SerializedNodeConfigSource, apiVersion nodeagent.config.orch.io/v1beta1), YAML or JSON.

Commands:
  validate FILE   check FILE: exit 0 when valid; 1 when not, printing every error on its own
                  line as "<field path>: <error>"
  default FILE    print FILE with every default applied, as YAML (errors as validate)
  schema          print the JSON schema of the file kinds (generated from the same field
                  definitions; rules between fields are checked by validate only)
  help            this text

Exit codes: 0 valid, 1 invalid, 2 usage error or unreadable file.
`;

/** Reads FILE, refusing one above the size limit before reading it. */
function readConfig(file: string): { text?: string; tooBig?: string } {
  const size = statSync(file).size;
  if (size > MAX_BYTES)
    return {
      tooBig: `<document>: Invalid value: the file is ${size} bytes, above the limit of ${MAX_BYTES} bytes`,
    };
  return { text: readFileSync(file, 'utf8') };
}

/** Where the command writes (process.stdout and process.stderr, or a run's buffers). */
interface Sink {
  write(s: string): unknown;
}

export function nodeConfig(argv: string[], out: Sink = process.stdout, err: Sink = process.stderr): number {
  const [cmd, ...rest] = argv;
  const usage = (why: string) => {
    err.write(`orch-conformance node-config: ${why}\n\n${NODE_CONFIG_HELP}`);
    return 2;
  };
  switch (cmd) {
    case 'help':
    case '-h':
    case '--help':
      out.write(NODE_CONFIG_HELP);
      return 0;
    case 'schema':
      if (rest.length) return usage(`schema takes no arguments`);
      out.write(`${JSON.stringify(nodeConfigJsonSchema(), null, 2)}\n`);
      return 0;
    case 'validate':
    case 'default': {
      if (rest.length !== 1 || rest[0]!.startsWith('-')) return usage(`${cmd} takes one FILE`);
      const file = rest[0]!;
      let read: ReturnType<typeof readConfig>;
      try {
        read = readConfig(file);
      } catch (e) {
        err.write(`orch-conformance node-config: cannot read ${file}: ${(e as Error).message}\n`);
        return 2;
      }
      if (read.tooBig) {
        err.write(`${file}: invalid\n${read.tooBig}\n`);
        return 1;
      }
      const loaded = loadNodeConfig(read.text!);
      if (loaded.errors.length) {
        err.write(`${file}: invalid (${loaded.errors.length} error${loaded.errors.length > 1 ? 's' : ''})\n`);
        for (const e of loaded.errors) err.write(`${formatFieldError(e)}\n`);
        return 1;
      }
      if (cmd === 'validate') out.write(`${file}: valid ${loaded.kind}\n`);
      else out.write(stringify(loaded.config, { lineWidth: 0 }));
      return 0;
    }
    case undefined:
      return usage('no command given');
    default:
      return usage(`unknown command "${cmd}"`);
  }
}

// run directly (the suite starts this file compiled to plain JavaScript, see
// suites/node-agent-config/commands.ts), as `orch-conformance node-config` does
if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = nodeConfig(process.argv.slice(2));

/** The command as a run calls it in its own process (`in-process:` commands of suites/node-agent-config/commands.ts). */
export default nodeConfig;
