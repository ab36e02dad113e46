// Times as the API writes them.

/** RFC 3339, whole seconds, UTC (metav1.Time). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
