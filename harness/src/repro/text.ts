// Text of a reproducer with shell variables in it: literal runs and variable references, so a
// value the script makes fresh (an object name) or is given (a token) can stand where the run
// had its own, in a quoted shell word, a here-document or a comment alike.

/** A literal run, or a variable (`enc`: percent-encoded, for a query value). */
export type Part = string | { v: string; enc?: boolean };
export type Text = Part[];

const isLit = (p: Part): p is string => typeof p === 'string';

/** Replaces every match of `re` (global) in the literal runs with what `to` makes of it. */
export function replaceMatches(t: Text, re: RegExp, to: (m: RegExpExecArray) => Part[]): Text {
  const out: Text = [];
  for (const p of t) {
    if (!isLit(p)) {
      out.push(p);
      continue;
    }
    let last = 0;
    re.lastIndex = 0;
    for (let m = re.exec(p); m; m = re.exec(p)) {
      if (m[0] === '') {
        re.lastIndex++;
        continue;
      }
      out.push(p.slice(last, m.index), ...to(m));
      last = m.index + m[0].length;
    }
    out.push(p.slice(last));
  }
  return out.filter((p) => p !== '');
}

/** Replaces every occurrence of the string `find` in the literal runs with `to`. */
export function replaceString(t: Text, find: string, to: Part[]): Text {
  if (!find) return t;
  return replaceMatches(t, new RegExp(find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'), () => to);
}

/** The text with neighbouring literal runs joined. */
export function joined(t: Text): Text {
  const out: Text = [];
  for (const p of t) {
    const last = out[out.length - 1];
    if (isLit(p) && last !== undefined && isLit(last)) out[out.length - 1] = last + p;
    else out.push(p);
  }
  return out;
}

/** One shell word: literal runs single-quoted, variables double-quoted between them. */
export function shellWord(t: Text): string {
  if (t.length === 0) return "''";
  return joined(t)
    .map((p) => (isLit(p) ? `'${p.replace(/'/g, `'\\''`)}'` : p.enc ? `"$(enc "$${p.v}")"` : `"$\{${p.v}}"`))
    .join('');
}

/** The lines of a here-document with an unquoted delimiter: `\`, `$` and backquotes escaped. */
export function heredocText(t: Text): string {
  return t
    .map((p) =>
      isLit(p) ? p.replace(/[\\$`]/g, (c) => `\\${c}`) : p.enc ? `$(enc "$${p.v}")` : `$\{${p.v}}`,
    )
    .join('');
}

/** For a comment: variables shown as $NAME. */
export function plainText(t: Text): string {
  return t.map((p) => (isLit(p) ? p : `$${p.v}`)).join('');
}
