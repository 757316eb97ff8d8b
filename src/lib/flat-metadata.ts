/**
 * A flat object of strings, in the order given, without the empty ones; a key already used is
 * suffixed ` (2)`, ` (3)`… (a property labelled `Score` beside the score itself). How a platform
 * whose result is a flat map (Greenhouse's `metadata`) or a list of named values (Ashby's) shows
 * a result's subtitle and properties.
 */
export function flatMetadata(entries: readonly (readonly [string, string | null | undefined])[]): Record<string, string> {
  // A Map, then own properties: a label such as `__proto__` is a key like any other.
  const metadata = new Map<string, string>();
  for (const [key, value] of entries) {
    if (value === null || value === undefined || value === '') continue;
    let unique = key;
    for (let n = 2; metadata.has(unique); n++) unique = `${key} (${n})`;
    metadata.set(unique, value);
  }
  return Object.fromEntries(metadata);
}
