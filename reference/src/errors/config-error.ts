// A server configuration that cannot be used (an unreadable or malformed file, a flag that
// needs another): the server does not start, and the message names the flag, the file and,
// where there is one, the line. The command line reports it as a usage error.
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}
