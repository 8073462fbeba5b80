import { hasBusinessTag, osmElementToItem, osmSkipReason } from "../osm-tags.js";
import { insideBox, type BoundingBox } from "../../../core/geo.js";
import type { ImportItem } from "../place-record.js";

/**
 * The format-independent half of the OSM importers (PBF and XML): nodes become places at
 * once; ways are remembered with their node ids and placed at the centroid of those
 * nodes once a second pass has looked up only the coordinates they need.
 */
export class OsmElementCollector {
  private readonly pendingWays: { id: number; tags: Record<string, string>; refs: number[] }[] = [];
  /** Node ids some business way needs → coordinates once found (NaN until then). */
  readonly neededNodes = new Map<number, [number, number]>();
  private found = 0;

  constructor(private readonly bbox: BoundingBox | undefined) {}

  node(id: number, lat: number, lng: number, tags: Record<string, string> | undefined): ImportItem | null {
    if (!hasBusinessTag(tags)) return null;
    const item = osmElementToItem("node", id, tags, lat, lng);
    if (item.kind === "place" && !insideBox(this.bbox, lat, lng)) return { kind: "skip", reason: "outside bbox" };
    return item;
  }

  /** A way: a skip item now, or null when it was kept for the second pass. */
  way(id: number, refs: number[], tags: Record<string, string> | undefined): ImportItem | null {
    if (!hasBusinessTag(tags)) return null;
    const reason = osmSkipReason(tags);
    if (reason) return { kind: "skip", reason };
    this.pendingWays.push({ id, tags, refs });
    for (const ref of refs) this.neededNodes.set(ref, [NaN, NaN]);
    return null;
  }

  get wayCount(): number {
    return this.pendingWays.length;
  }

  /** Second pass: record a node's coordinates if a way needs them. Returns true once all are known. */
  coordinates(id: number, lat: number, lng: number): boolean {
    const slot = this.neededNodes.get(id);
    if (slot && Number.isNaN(slot[0])) {
      slot[0] = lat;
      slot[1] = lng;
      this.found++;
    }
    return this.found === this.neededNodes.size;
  }

  get allCoordinatesKnown(): boolean {
    return this.found === this.neededNodes.size;
  }

  /** The ways as places at the centroid of their (distinct, known) nodes. */
  *ways(): Generator<ImportItem> {
    for (const way of this.pendingWays) {
      let lat = 0;
      let lng = 0;
      let n = 0;
      for (const ref of new Set(way.refs)) {
        const coords = this.neededNodes.get(ref);
        if (!coords || Number.isNaN(coords[0])) continue; // outside a clipped extract
        lat += coords[0];
        lng += coords[1];
        n++;
      }
      if (n === 0) {
        yield { kind: "skip", reason: "no coordinates" };
        continue;
      }
      const item = osmElementToItem("way", way.id, way.tags, lat / n, lng / n);
      if (item.kind === "place" && !insideBox(this.bbox, item.place.lat, item.place.lng)) yield { kind: "skip", reason: "outside bbox" };
      else yield item;
    }
    this.pendingWays.length = 0;
    this.neededNodes.clear();
  }
}
