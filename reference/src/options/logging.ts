// -v, --v: the log's verbosity, as kube-apiserver takes it. At 0 (the default) a start prints
// its banner and nothing else; from 3, a line for each request (http/request-log.ts).
import { REQUEST_LOG_VERBOSITY } from '../http/request-log.ts';
import { intFlag, type OptionSection } from './flags.ts';

export const loggingOptions: OptionSection = {
  flags: { v: { type: 'string', short: 'v' } },
  usage: `  -v, --v N                  the log's verbosity (default 0: the banner, and errors); from
                             ${REQUEST_LOG_VERBOSITY}, a line on standard error for each request when its reply
                             ends, as kube-apiserver's request log writes it (verb, URI, latency,
                             user agent, audit ID, source address, response code)
`,
  parse({ str, options }) {
    const v = intFlag('v', str('v'), 0, 10);
    if (v !== undefined) options.verbosity = v;
  },
};
