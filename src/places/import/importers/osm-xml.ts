import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { AppError, badRequest } from "../../../core/errors.js";
import { OSM_ATTRIBUTION, OSM_LICENCE, type ImportItem, type ImportOptions, type PlaceImporter, type SourceInfo } from "../place-record.js";
import { bzip2Stream, Bzip2Error, type Bzip2Decoder } from "./bzip2-stream.js";
import { dateFromFileName } from "./data-date.js";
import { OsmElementCollector } from "./osm-elements.js";
import type { RelationMember } from "./pbf-tagged-elements.js";

/** One element of the XML as the parser collects it. */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  tags: Record<string, string>;
  refs: number[];
  members: RelationMember[];
}

const MEMBER_TYPES = new Set(["node", "way", "relation"]);

/**
 * `.osm` and `.osm.bz2` OSM XML, streamed: once for businesses and named places, again
 * for the node lists of kept relations' member ways (when there are any), and again for
 * the coordinates of the nodes ways and relations need. All decompress as they go, so
 * memory stays bounded whatever the file's size; for countries the PBF is still the
 * better choice (several times smaller and faster to read).
 */
export class OsmXmlImporter implements PlaceImporter {
  private dataDate: string | null = null;

  constructor(
    private readonly path: string,
    private readonly options: { bzip2Decoder?: Bzip2Decoder } = {},
  ) {}

  private text(signal?: AbortSignal): Readable {
    if (!this.path.endsWith(".bz2")) return createReadStream(this.path, { encoding: "utf8", signal });
    // setEncoding: a character split across two chunks is decoded whole.
    return bzip2Stream(this.path, { decoder: this.options.bzip2Decoder, signal }).setEncoding("utf8");
  }

  /** Run the SAX parser over the file, handing each element to `onElement`; yields what it returns. */
  private async *parse(
    signal: AbortSignal | undefined,
    onElement: (element: XmlElement) => ImportItem | null,
  ): AsyncGenerator<ImportItem> {
    const fileName = basename(this.path);
    const parser = new SaxesParser();
    const pending: ImportItem[] = [];
    let current: XmlElement | null = null;
    let sawRoot = false;
    parser.on("opentag", (tag: SaxesTagPlain) => {
      const attributes = tag.attributes as Record<string, string>;
      if (!sawRoot) {
        if (tag.name !== "osm") throw badRequest(`${fileName} is not OSM XML (root element <${tag.name}>, expected <osm>)`);
        sawRoot = true;
        if (attributes.timestamp) this.dataDate ??= attributes.timestamp.slice(0, 10);
        return;
      }
      if (tag.name === "node" || tag.name === "way" || tag.name === "relation") current = { name: tag.name, attributes, tags: {}, refs: [], members: [] };
      else if (tag.name === "tag" && current && attributes.k !== undefined) current.tags[attributes.k] = attributes.v ?? "";
      else if (tag.name === "nd" && current && attributes.ref) current.refs.push(Number(attributes.ref));
      else if (tag.name === "member" && current && attributes.ref && MEMBER_TYPES.has(attributes.type ?? "")) {
        current.members.push({ type: attributes.type as RelationMember["type"], ref: Number(attributes.ref), role: attributes.role ?? "" });
      }
      else if (tag.name === "meta" && attributes.osm_base) this.dataDate ??= attributes.osm_base.slice(0, 10);
    });
    parser.on("closetag", (tag) => {
      if (current && tag.name === current.name) {
        const item = onElement(current);
        if (item) pending.push(item);
        current = null;
      }
    });
    const text = this.text(signal);
    try {
      for await (const chunk of text) {
        signal?.throwIfAborted();
        parser.write(chunk as string);
        yield* pending.splice(0);
      }
      parser.close();
    } catch (err) {
      if (err instanceof AppError || (err instanceof Error && err.name === "AbortError")) throw err;
      if (err instanceof Bzip2Error) throw badRequest(`${fileName} is not a readable bzip2 file (${err.message})`);
      throw badRequest(`${fileName} is not well-formed OSM XML: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    } finally {
      text.destroy();
    }
    yield* pending.splice(0);
  }

  async *read(options: ImportOptions): AsyncGenerator<ImportItem> {
    const collector = new OsmElementCollector(options.bbox);
    yield* this.parse(options.signal, (el) => {
      const id = Number(el.attributes.id);
      if (!Number.isSafeInteger(id)) return null;
      if (el.name === "node") return collector.node(id, Number(el.attributes.lat), Number(el.attributes.lon), el.tags);
      if (el.name === "way") return collector.way(id, el.refs, el.tags);
      return collector.relation(id, () => el.members, el.tags);
    });
    if (collector.pendingCount === 0) return;
    if (collector.needsMemberWays) {
      for await (const _ of this.parse(options.signal, (el) => {
        const id = Number(el.attributes.id);
        if (el.name === "way" && collector.wantsWay(id)) collector.memberWay(id, el.refs);
        return null;
      }));
    }
    for await (const _ of this.parse(options.signal, (el) => {
      if (el.name === "node") collector.coordinates(Number(el.attributes.id), Number(el.attributes.lat), Number(el.attributes.lon));
      return null;
    }));
    yield* collector.areas();
  }

  source(): SourceInfo {
    return { kind: "osm", dataDate: this.dataDate ?? dateFromFileName(basename(this.path)), licence: OSM_LICENCE, attribution: OSM_ATTRIBUTION };
  }
}
