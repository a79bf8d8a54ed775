/** Whether `name` is an IANA time zone this runtime knows (e.g. `Europe/Paris`, `UTC`). */
export function isIanaTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
