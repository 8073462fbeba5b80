import { hasBusinessTag, isAreaRelation, osmElementToItem, osmNamedPlaceKind, osmSkipReason } from "../osm-tags.js";
import { insideBox, type BoundingBox } from "../../../core/geo.js";
import type { ImportItem, NamedPlaceKind } from "../place-record.js";
import { NodePositions } from "./node-positions.js";
import type { RelationMember } from "./pbf-tagged-elements.js";

/** An element placed at the centroid of nodes it does not carry: a way, or a relation of ways. */
interface PendingArea {
  type: "way" | "relation";
  id: number;
  tags: Record<string, string>;
  /** A business, or the kind of named place it is. */
  what: "business" | NamedPlaceKind;
  /** Node ids (a way's, typed: millions of them in a country) or member way ids (a relation's). */
  refs: Float64Array | number[];
  /** A relation's label or admin_centre node, which places it better than its outline. */
  labelNode?: number;
}

/** Roles of a relation's members that outline it (inner rings are holes). */
const OUTLINE_ROLES = new Set(["outer", ""]);
const LABEL_ROLES = new Set(["label", "admin_centre"]);

/**
 * The format-independent half of the OSM importers (PBF and XML). Nodes become places
 * (businesses) or named places (for the geocoder: cities, districts, squares) at once.
 * Ways and relations are placed at the centroid of their nodes, which later passes look
 * up: a way's own nodes; for a relation (a business mapped as a multipolygon, an
 * administrative district), first the node lists of its member ways (`memberWay`), then
 * their nodes. A business relation is placed among all its outline's nodes; a named
 * place at its label node when it has one, else among its member ways' end nodes (a
 * district's outline can be thousands of nodes; its ends are enough for a centre).
 */
export class OsmElementCollector {
  private readonly pending: PendingArea[] = [];
  /** Member way ids of pending relations → their node ids once read (all, or only the ends). */
  private readonly memberWays = new Map<number, number[] | null>();
  private readonly memberWayNeedsAll = new Set<number>();
  /** The nodes some pending element needs, and their coordinates once found. */
  private neededNodes = new NodePositions();

  constructor(private readonly bbox: BoundingBox | undefined) {}

  node(id: number, lat: number, lng: number, tags: Record<string, string> | undefined): ImportItem | null {
    if (hasBusinessTag(tags)) {
      const item = osmElementToItem("node", id, tags, lat, lng);
      if (item.kind === "place" && !insideBox(this.bbox, lat, lng)) return { kind: "skip", reason: "outside bbox" };
      return item;
    }
    const kind = osmNamedPlaceKind(tags);
    if (!kind || !insideBox(this.bbox, lat, lng)) return null;
    return { kind: "locality", locality: { id: `osm:node:${id}`, name: tags!.name!.trim(), kind, lat, lng } };
  }

  /** A way: a skip item now, or null when it was kept for the coordinates pass (or is nothing to us). */
  way(id: number, refs: number[], tags: Record<string, string> | undefined): ImportItem | null {
    if (hasBusinessTag(tags)) {
      const reason = osmSkipReason(tags);
      if (reason) return { kind: "skip", reason };
      this.keep({ type: "way", id, tags, what: "business", refs: Float64Array.from(refs) });
      return null;
    }
    const kind = osmNamedPlaceKind(tags);
    if (kind) this.keep({ type: "way", id, tags: tags!, what: kind, refs });
    return null;
  }

  /** A relation: a business multipolygon or a named area is kept for the member-ways pass; a skip item for an unusable business. */
  relation(id: number, members: () => RelationMember[], tags: Record<string, string> | undefined): ImportItem | null {
    if (!tags || !isAreaRelation(tags)) return null;
    const business = hasBusinessTag(tags);
    const kind = business ? null : osmNamedPlaceKind(tags);
    if (business) {
      const reason = osmSkipReason(tags);
      if (reason) return { kind: "skip", reason };
    } else if (!kind) return null;
    const list = members();
    const ways = list.filter((m) => m.type === "way" && OUTLINE_ROLES.has(m.role)).map((m) => m.ref);
    const label = kind ? list.find((m) => m.type === "node" && LABEL_ROLES.has(m.role))?.ref : undefined;
    const area: PendingArea = { type: "relation", id, tags, what: business ? "business" : kind!, refs: ways, labelNode: label };
    if (label !== undefined) this.neededNodes.want(label);
    for (const way of area.refs) {
      if (!this.memberWays.has(way)) this.memberWays.set(way, null);
      if (business) this.memberWayNeedsAll.add(way);
    }
    this.pending.push(area);
    return null;
  }

  private keep(area: PendingArea): void {
    this.pending.push(area);
    for (const ref of area.refs) this.neededNodes.want(ref);
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Whether a member-ways pass is needed (some relation's ways are not known yet). */
  get needsMemberWays(): boolean {
    for (const refs of this.memberWays.values()) if (refs === null) return true;
    return false;
  }

  /** Whether the member-ways pass wants this way's node ids. */
  wantsWay(id: number): boolean {
    return this.memberWays.get(id) === null;
  }

  /** Member-ways pass: a way some relation needs, with its node ids. */
  memberWay(id: number, refs: number[]): void {
    if (this.memberWays.get(id) !== null || refs.length === 0) return;
    const kept = this.memberWayNeedsAll.has(id) ? refs : [refs[0]!, refs[refs.length - 1]!];
    this.memberWays.set(id, kept);
    for (const ref of kept) this.neededNodes.want(ref);
  }

  /** Coordinates pass: record a node's coordinates if something needs them. Returns true once all are known. */
  coordinates(id: number, lat: number, lng: number): boolean {
    this.neededNodes.set(id, lat, lng);
    return this.neededNodes.allKnown;
  }

  get allCoordinatesKnown(): boolean {
    return this.neededNodes.allKnown;
  }

  /** The kept ways and relations at the centroid of their (distinct, known) nodes. */
  *areas(): Generator<ImportItem> {
    for (const area of this.pending) {
      const point = this.centroid(area);
      if (!point) {
        if (area.what === "business") yield { kind: "skip", reason: "no coordinates" };
        continue;
      }
      if (area.what !== "business") {
        if (insideBox(this.bbox, point.lat, point.lng)) yield { kind: "locality", locality: { id: `osm:${area.type}:${area.id}`, name: area.tags.name!.trim(), kind: area.what, ...point } };
        continue;
      }
      const item = osmElementToItem(area.type, area.id, area.tags, point.lat, point.lng);
      if (item.kind === "place" && !insideBox(this.bbox, item.place.lat, item.place.lng)) yield { kind: "skip", reason: "outside bbox" };
      else yield item;
    }
    this.pending.length = 0;
    this.memberWays.clear();
    this.memberWayNeedsAll.clear();
    this.neededNodes = new NodePositions();
  }

  private centroid(area: PendingArea): { lat: number; lng: number } | undefined {
    if (area.labelNode !== undefined) {
      const label = this.neededNodes.get(area.labelNode);
      if (label) return label;
    }
    const nodes = area.type === "way" ? area.refs : (area.refs as number[]).flatMap((way) => this.memberWays.get(way) ?? []);
    let lat = 0;
    let lng = 0;
    let n = 0;
    for (const ref of new Set(nodes)) {
      const coords = this.neededNodes.get(ref);
      if (!coords) continue; // outside a clipped extract
      lat += coords.lat;
      lng += coords.lng;
      n++;
    }
    return n === 0 ? undefined : { lat: lat / n, lng: lng / n };
  }
}
