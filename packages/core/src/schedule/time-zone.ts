const known = new Map<string, boolean>();

/** True for IANA zone names the runtime knows (`Europe/Paris`, `UTC`); results are cached. */
export function isValidTimeZone(zone: string): boolean {
  let valid = known.get(zone);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      valid = zone.length > 0;
    } catch {
      valid = false;
    }
    if (known.size < 10_000) known.set(zone, valid);
  }
  return valid;
}
