// The server's health during a run: /readyz and /livez answer 200, the process still runs.
export interface FuzzTarget {
  url: string;
  token: string;
  /** The server process is running. */
  alive(): boolean;
  /** Its resident memory in bytes. */
  rss(): number | undefined;
}

async function probe(url: string, token: string, path: string): Promise<number> {
  try {
    const r = await fetch(`${url}${path}`, {
      headers: { Authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/** The health problems now (none when healthy). */
export async function healthProblems(t: FuzzTarget): Promise<string[]> {
  const out: string[] = [];
  if (!t.alive()) return ['the server process is not running'];
  for (const p of ['/readyz', '/livez']) {
    const s = await probe(t.url, t.token, p);
    if (s !== 200) out.push(`${p} answered ${s || 'nothing'}`);
  }
  return out;
}

/** Whether a process id is a running process. */
export function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
