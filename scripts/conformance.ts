// `npm run conformance`: the conformance run against the embedded reference server.
import { run } from './run.ts';

run(process.argv.slice(2)).then(
  (c) => process.exit(c),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(2);
  },
);
