import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distanceKm, type LatLng } from "../../../src/core/geo.js";
import { Geocoder } from "../../../src/places/geocode/geocoder.js";
import { tempDir } from "../../helpers/data-dir.js";
import { createTestInstance } from "../../helpers/instance.js";
import { offsetKm } from "../../helpers/places.js";

/** The City of Westminster's place node, as OSM maps it. */
const WESTMINSTER: LatLng = { lat: 51.4975, lng: -0.1357 };

/**
 * An OSM extract with a district node "Westminster" and businesses whose addresses say
 * `addr:city=Westminster`, all lying 2 km east of it (an extract clipped at its edge): the
 * mean of the addresses is not the place.
 */
function extract(placeTag: string): string {
  const shops = Array.from({ length: 12 }, (_, i) => {
    const at = offsetKm(WESTMINSTER.lat, WESTMINSTER.lng, (i % 3) * 0.2 - 0.2, 2 + Math.floor(i / 3) * 0.2);
    return `<node id="${100 + i}" lat="${at.lat}" lon="${at.lng}"><tag k="shop" v="bakery"/><tag k="name" v="Bakery ${i}"/><tag k="addr:city" v="Westminster"/></node>`;
  });
  return `<?xml version="1.0"?><osm version="0.6">
<node id="1" lat="${WESTMINSTER.lat}" lon="${WESTMINSTER.lng}"><tag k="place" v="${placeTag}"/><tag k="name" v="Westminster"/></node>
${shops.join("\n")}
</osm>`;
}

/** The same node beside a "City of Westminster" boundary (admin_level 8) of which the extract holds only an eastern strip. */
function extractWithBoundary(): string {
  const corners = [[-0.5, 1.5], [-0.5, 2.5], [0.5, 2.5], [0.5, 1.5]].map(([n, e], i) => ({ id: 200 + i, ...offsetKm(WESTMINSTER.lat, WESTMINSTER.lng, n!, e!) }));
  return `<?xml version="1.0"?><osm version="0.6">
<node id="1" lat="${WESTMINSTER.lat}" lon="${WESTMINSTER.lng}"><tag k="place" v="suburb"/><tag k="name" v="Westminster"/></node>
${corners.map((c) => `<node id="${c.id}" lat="${c.lat}" lon="${c.lng}"/>`).join("\n")}
<way id="300">${[...corners, corners[0]!].map((c) => `<nd ref="${c.id}"/>`).join("")}</way>
<relation id="400"><member type="way" ref="300" role="outer"/><tag k="type" v="boundary"/><tag k="boundary" v="administrative"/><tag k="admin_level" v="8"/><tag k="name" v="City of Westminster"/></relation>
</osm>`;
}

describe("a district or city named by a place=* element", () => {
  it("resolves to that element, not to the centre of a boundary of the same name the extract holds only in part", async () => {
    const instance = createTestInstance();
    const file = join(tempDir(), "westminster-boundary.osm");
    writeFileSync(file, extractWithBoundary());
    await instance.services.placesImport.importFile(file);
    const resolved = new Geocoder(instance.services.deps.db).resolveText("Westminster");
    expect(distanceKm(resolved!.center, WESTMINSTER)).toBeLessThan(0.05);
    // The boundary still answers to its own full name.
    expect(distanceKm(new Geocoder(instance.services.deps.db).resolveText("City of Westminster")!.center, WESTMINSTER)).toBeGreaterThan(1.5);
  });


  for (const placeTag of ["suburb", "borough", "city"]) {
    it(`resolves to that element, not to the mean of the addresses naming it (place=${placeTag})`, async () => {
      const instance = createTestInstance();
      const file = join(tempDir(), "westminster.osm");
      writeFileSync(file, extract(placeTag));
      await instance.services.placesImport.importFile(file);
      const resolved = new Geocoder(instance.services.deps.db).resolveText("Westminster");
      expect(resolved).toBeDefined();
      expect(distanceKm(resolved!.center, WESTMINSTER)).toBeLessThan(0.05);
    });
  }
});
