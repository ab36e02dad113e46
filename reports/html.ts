// What the report pages share: text made safe inside HTML.

/** `s` with the characters HTML gives a meaning to written as entities. */
export const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
