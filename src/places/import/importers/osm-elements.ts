import { hasBusinessTag, isAreaRelation, osmElementToItem, osmNamedPlaceKind, osmSkipReason, osmUnplacedItem } from "../../vocabulary/osm-tags.js";
import { insideBox, type BoundingBox } from "../../../core/geo.js";
import type { ImportItem, NamedPlaceKind } from "../place-record.js";
import { decodeUnplacedAt, encodeUnplaced } from "./import-item-codec.js";
import { NodePositions, sharedSortedIds } from "./node-positions.js";
import type { RelationMember } from "./pbf-tagged-elements.js";

/**
 * An element placed at the centroid of nodes it does not carry: a way, or a relation of
 * ways. Its place is mapped from its tags at once (where they are decoded, a worker thread
 * for PBF) and kept as one string until its point is known: a country has a million of
 * them, and a string of a few hundred one-byte characters is a fraction of the tags' object.
 */
export interface PendingArea {
  type: "way" | "relation";
  id: number;
  /** A business (its `UnplacedPlace`, `encodeUnplaced`), or a named place (its kind and name). */
  what: { business: string } | { kind: NamedPlaceKind; name: string };
  /** Node ids (a way's, typed: millions of them in a country) or member way ids (a relation's). */
  refs: Float64Array | number[];
  /** A relation's label or admin_centre node, which places it better than its outline. */
  labelNode?: number;
}

/** Roles of a relation's members that outline it (inner rings are holes). */
const OUTLINE_ROLES = new Set(["outer", ""]);
const LABEL_ROLES = new Set(["label", "admin_centre"]);

/** A node: a place or a named place at once, a skip item, or null when it is nothing to us. */
export function osmNodeItem(id: number, lat: number, lng: number, tags: Record<string, string> | undefined, bbox: BoundingBox | undefined): ImportItem | null {
  if (hasBusinessTag(tags)) {
    const item = osmElementToItem("node", id, tags, lat, lng);
    if (item.kind === "place" && !insideBox(bbox, lat, lng)) return { kind: "skip", reason: "outside bbox" };
    return item;
  }
  const kind = osmNamedPlaceKind(tags);
  if (!kind || !insideBox(bbox, lat, lng)) return null;
  return { kind: "locality", locality: { id: `osm:node:${id}`, name: tags!.name!.trim(), kind, lat, lng } };
}

/** A way: a skip item, an area to place later, or null when it is nothing to us (its node list is only decoded for an area). */
export function osmWayArea(id: number, refs: () => number[], tags: Record<string, string> | undefined): ImportItem | PendingArea | null {
  if (hasBusinessTag(tags)) {
    const item = osmUnplacedItem("way", id, tags);
    if (item.kind === "skip") return item;
    return { type: "way", id, what: { business: encodeUnplaced(item.place) }, refs: Float64Array.from(refs()) };
  }
  const kind = osmNamedPlaceKind(tags);
  return kind ? { type: "way", id, what: { kind, name: tags!.name!.trim() }, refs: Float64Array.from(refs()) } : null;
}

/** A relation: a business multipolygon or a named area to place later, a skip item for an unusable business, or null. */
export function osmRelationArea(id: number, members: () => RelationMember[], tags: Record<string, string> | undefined): ImportItem | PendingArea | null {
  if (!tags || !isAreaRelation(tags)) return null;
  const name = tags.name;
  let what: PendingArea["what"];
  let kind: NamedPlaceKind | null = null;
  if (hasBusinessTag(tags)) {
    const item = osmUnplacedItem("relation", id, tags);
    if (item.kind === "skip") return item;
    what = { business: encodeUnplaced(item.place) };
  } else {
    kind = osmNamedPlaceKind(tags);
    if (!kind) return null;
    what = { kind, name: name!.trim() };
  }
  const list = members();
  const ways = list.filter((m) => m.type === "way" && OUTLINE_ROLES.has(m.role)).map((m) => m.ref);
  const label = kind ? list.find((m) => m.type === "node" && LABEL_ROLES.has(m.role))?.ref : undefined;
  return { type: "relation", id, what, refs: ways, labelNode: label };
}

export const isPendingArea = (value: ImportItem | PendingArea): value is PendingArea => "what" in value;

/**
 * The format-independent half of the OSM importers (PBF and XML). Nodes become places
 * (businesses) or named places (for the geocoder: cities, districts, squares) at once.
 * Ways and relations are placed at the centroid of their nodes, which later passes look
 * up: a way's own nodes; for a relation (a business mapped as a multipolygon, an
 * administrative district), first the node lists of its member ways (`memberWay`), then
 * their nodes. A business relation is placed among all its outline's nodes; a named
 * place at its label node when it has one, else among its member ways' end nodes (a
 * district's outline can be thousands of nodes; its ends are enough for a centre).
 * The mapping of single elements (`osmNodeItem`, `osmWayArea`, `osmRelationArea`) keeps
 * no state, so the PBF importer runs it in its decoding threads and hands the collector
 * the areas (`keep`).
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
    return osmNodeItem(id, lat, lng, tags, this.bbox);
  }

  /** A way: a skip item now, or null when it was kept for the coordinates pass (or is nothing to us). */
  way(id: number, refs: number[], tags: Record<string, string> | undefined): ImportItem | null {
    return this.keepOrReturn(osmWayArea(id, () => refs, tags));
  }

  /** A relation: a business multipolygon or a named area is kept for the member-ways pass; a skip item for an unusable business. */
  relation(id: number, members: () => RelationMember[], tags: Record<string, string> | undefined): ImportItem | null {
    return this.keepOrReturn(osmRelationArea(id, members, tags));
  }

  private keepOrReturn(result: ImportItem | PendingArea | null): ImportItem | null {
    if (result === null || !isPendingArea(result)) return result;
    this.keep(result);
    return null;
  }

  /** An area to place once its nodes' positions are known (a way's nodes, or a relation's member ways first). */
  keep(area: PendingArea): void {
    this.pending.push(area);
    if (area.type === "way") {
      for (const ref of area.refs) this.neededNodes.want(ref);
      return;
    }
    if (area.labelNode !== undefined) this.neededNodes.want(area.labelNode);
    const business = "business" in area.what;
    for (const way of area.refs) {
      if (!this.memberWays.has(way)) this.memberWays.set(way, null);
      if (business) this.memberWayNeedsAll.add(way);
    }
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

  /** The member ways not read yet, ascending, in memory the decoding threads share. */
  wantedWays(): Float64Array {
    const ids: number[] = [];
    for (const [id, refs] of this.memberWays) if (refs === null) ids.push(id);
    return sharedSortedIds(ids);
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

  /** The nodes the coordinates pass looks for, ascending, in memory the decoding threads share (`coordinatesAt` takes an index of it). */
  wantedNodes(): Float64Array {
    return this.neededNodes.sortedIds();
  }

  /** Coordinates pass: the position of the node at `index` of `wantedNodes()`. */
  coordinatesAt(index: number, lat: number, lng: number): void {
    this.neededNodes.setAt(index, lat, lng);
  }

  get allCoordinatesKnown(): boolean {
    return this.neededNodes.allKnown;
  }

  /** The kept ways and relations at the centroid of their (distinct, known) nodes. */
  *areas(): Generator<ImportItem> {
    for (const area of this.pending) {
      const point = this.centroid(area);
      if (!point) {
        if ("business" in area.what) yield { kind: "skip", reason: "no coordinates" };
        continue;
      }
      if (!("business" in area.what)) {
        if (insideBox(this.bbox, point.lat, point.lng)) yield { kind: "locality", locality: { id: `osm:${area.type}:${area.id}`, name: area.what.name, kind: area.what.kind, ...point } };
        continue;
      }
      if (!insideBox(this.bbox, point.lat, point.lng)) yield { kind: "skip", reason: "outside bbox" };
      else yield { kind: "place", place: decodeUnplacedAt(area.what.business, point.lat, point.lng) };
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
    // Each distinct node once, summed in the order of first sight (the same doubles as
    // ever). A way of a few dozen nodes (most: a closed ring repeats its first) is checked
    // against the nodes before it; a long one through a Set.
    const seen = nodes.length > 64 ? new Set<number>() : null;
    for (let i = 0; i < nodes.length; i++) {
      const ref = nodes[i]!;
      if (seen ? seen.has(ref) : seenBefore(nodes, i)) continue;
      seen?.add(ref);
      const at = this.neededNodes.indexOfKnown(ref);
      if (at < 0) continue; // outside a clipped extract
      lat += this.neededNodes.latAt(at);
      lng += this.neededNodes.lngAt(at);
      n++;
    }
    return n === 0 ? undefined : { lat: lat / n, lng: lng / n };
  }
}

/** Whether `nodes[i]` is also at an index before `i`. */
function seenBefore(nodes: ArrayLike<number>, i: number): boolean {
  const ref = nodes[i];
  for (let j = 0; j < i; j++) if (nodes[j] === ref) return true;
  return false;
}
