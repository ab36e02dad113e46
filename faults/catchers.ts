// How a fault names its catchers: an exact case id, or an id prefix ending in '/' for a
// family of rows (e.g. 'resource-versions/list/').
export function matchesCase(catcher: string, id: string): boolean {
  return catcher.endsWith('/') ? id.startsWith(catcher) : id === catcher;
}
