// `orch-conformance convert -f FILE [--output-version GROUP/VERSION]`: rewrites manifests (one
// or several YAML documents, or JSON) from retired API versions to their replacements, applying
// doc2's field changes (scripts/convert/). The result goes to stdout (or -o FILE); what could
// not be converted, or changes behaviour, goes to stderr, one line per note.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { DialectName } from '../harness/src/dialect.ts';
import { convertManifests } from './convert/index.ts';

export const CONVERT_HELP = `Usage: orch-conformance convert -f FILE [--output-version GROUP/VERSION] [flags]

Rewrites manifests written for API versions that are no longer served into their
replacements (doc2's retired-versions table), with each row's field changes: Ingress
backends and pathType, apps/v1 selectors, webhook configuration defaults, the
CustomResourceDefinition v1 layout, HorizontalPodAutoscaler v2 metrics, FlowSchema and
PriorityLevelConfiguration concurrency shares, EndpointSlice topology, ...
Where an old version's default differs from the new one's, the old default is written out
so objects behave as before. Objects already at a served version pass through unchanged.

Flags:
  -f, --filename FILE        the manifest (YAML documents separated by ---, or JSON); - for stdin
  --output-version GV        convert only to this group/version (e.g. networking.orch.io/v1);
                             objects replaced by another version are left as they are, with a note
  -o, --output FILE          write there instead of stdout
  --format yaml|json         output format (default yaml; json writes a List for several objects)
  --dialect orch|kubernetes  the words of the file (default orch; kubernetes for k8s.io names)
  -q, --quiet                no notes on stderr

Notes (stderr): "<document>: <Kind> <name> <from> -> <to>: <note>" for every field dropped,
defaulted differently, or needing a decision, and every object that could not be converted.
Exit codes: 0 converted (notes may have been printed), 1 some object could not be converted
(it is left out, or left as it was), 2 usage error or unreadable input.
`;

export function convert(argv: string[], out = process.stdout, err = process.stderr): number {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        filename: { type: 'string', short: 'f' },
        'output-version': { type: 'string' },
        output: { type: 'string', short: 'o' },
        format: { type: 'string' },
        dialect: { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    err.write(`orch-conformance convert: ${(e as Error).message}\n\n${CONVERT_HELP}`);
    return 2;
  }
  if (values.help) {
    out.write(CONVERT_HELP);
    return 0;
  }
  const usage = (why: string) => {
    err.write(`orch-conformance convert: ${why}\n\n${CONVERT_HELP}`);
    return 2;
  };
  const file = values.filename as string | undefined;
  if (!file) return usage('-f FILE is required');
  const format = (values.format as string | undefined) ?? 'yaml';
  if (format !== 'yaml' && format !== 'json')
    return usage(`--format must be yaml or json, not ${JSON.stringify(format)}`);
  const dialectName = (values.dialect as string | undefined) ?? 'orch';
  if (dialectName !== 'orch' && dialectName !== 'kubernetes')
    return usage(`--dialect must be orch or kubernetes, not ${JSON.stringify(dialectName)}`);
  const outputVersion = values['output-version'] as string | undefined;
  if (outputVersion !== undefined && !/^([a-z0-9.-]+\/)?v[0-9]+((alpha|beta)[0-9]+)?$/.test(outputVersion))
    return usage(`--output-version must be GROUP/VERSION (or v1), not ${JSON.stringify(outputVersion)}`);
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    err.write(`orch-conformance convert: cannot read ${file}: ${(e as Error).message}\n`);
    return 2;
  }
  const r = convertManifests(text, { outputVersion, format, dialect: dialectName as DialectName });
  if (r.errors.length) {
    for (const e of r.errors) err.write(`orch-conformance convert: ${file}: ${e}\n`);
    return 2;
  }
  if (values.output) writeFileSync(values.output as string, r.text);
  else out.write(r.text);
  let failed = false;
  for (const rep of r.reports) {
    if (rep.dropped) failed = true;
    if (values.quiet) continue;
    const head = `${rep.at}: ${rep.kind} ${rep.name || '<no name>'} ${rep.from} -> ${rep.dropped ? '(left out)' : rep.to}`;
    for (const n of rep.notes) err.write(`${head}: ${n}\n`);
  }
  return failed ? 1 : 0;
}
