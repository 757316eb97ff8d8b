/** JSON bodies indented for reading; anything else as it came. */
export function pretty(text: string | null): string {
  if (text === null || text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
