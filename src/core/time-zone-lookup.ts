import tzLookup from "@photostructure/tz-lookup";
import { isTimeZone } from "./send-window.js";

/**
 * The IANA time zone at a point (a lead's coordinates), for send windows. The package is
 * @photostructure/tz-lookup, the maintained fork of tz-lookup: about 100 KB of embedded,
 * simplified zone boundaries answering synchronously in microseconds, with the zone names
 * of today's tz database. geo-tz is exact to the border but ships about 70 MB of boundary
 * data and by default answers with zones merged since 1970 (Vaduz → Europe/Zurich,
 * Eindhoven → Europe/Brussels), where tz-lookup names the country's own zone
 * (Europe/Vaduz, Europe/Amsterdam). A local business is rarely within a few kilometres of
 * a zone border, and the user can correct a contact's zone; the size decides.
 */
export function timeZoneAt(lat: number, lng: number): string | null {
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
  try {
    const zone = tzLookup(lat, lng);
    // Over the open sea the package answers Etc/GMT±n: a valid zone, kept.
    return isTimeZone(zone) ? zone : null;
  } catch {
    return null;
  }
}
