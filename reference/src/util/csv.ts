// A reader of comma-separated records with the rules of the usual CSV format as the
// cluster's file flags read it: records of any width, leading spaces of a field dropped,
// quoted fields (`""` for a quote, commas and line breaks inside), blank lines skipped, and
// a quote in an unquoted field or stray text after a closing quote an error naming its line.

export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(`parse error on line ${line}, column ${column}: ${problem}`);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const src = text.replace(/\r\n/g, '\n');
  const out: CsvRecord[] = [];
  let i = 0;
  let line = 1;
  while (i < src.length) {
    if (src[i] === '\n') {
      // a blank line is no record
      i++;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      // one field
      while (i < src.length && (src[i] === ' ' || src[i] === '\t')) i++;
      let field = '';
      if (src[i] === '"') {
        const openLine = line;
        const openCol = col(src, i);
        i++;
        for (;;) {
          // an unterminated quoted field is reported where it opened
          if (i >= src.length) throw new CsvError(openLine, openCol, 'extraneous or missing " in quoted-field');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n')
          throw new CsvError(line, col(src, i), 'extraneous or missing " in quoted-field');
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n') {
          if (src[i] === '"') throw new CsvError(line, col(src, i), 'bare " in non-quoted-field');
          field += src[i];
          i++;
        }
      }
      fields.push(field);
      if (src[i] === ',') {
        i++;
        continue;
      }
      // end of the record (a line break or the end of the text)
      if (src[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    out.push({ line: start, fields });
  }
  return out;
}

/** 1-based column of offset i on its line. */
function col(src: string, i: number): number {
  return i - src.lastIndexOf('\n', i - 1);
}
