// Times as the API writes them.

/** RFC 3339, whole seconds, UTC (metav1.Time). */
export function rfc3339(ms: number): string {
  const sec = Math.floor(ms / 1000);
  // every write stamps the current second (creation, managed fields): format each second once
  if (sec !== lastSecond) {
    lastText = new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
    lastSecond = sec;
  }
  return lastText;
}

let lastSecond = Number.NaN;
let lastText = '';
