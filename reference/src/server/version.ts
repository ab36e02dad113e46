// The version the server reports (/version, the build-info metric, the banner) and the release
// its metrics' deprecations are judged against.

export const SERVER_VERSION = {
  major: '1',
  minor: '28',
  gitVersion: 'v1.28.0-orch.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: 'go1.20',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** The release the server is (`1.28`): what its metrics' deprecations are judged against. */
export const SERVER_RELEASE = `${SERVER_VERSION.major}.${SERVER_VERSION.minor}`;
