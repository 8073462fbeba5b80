import type { PageDigest, TextBlock } from "./page-digest.js";
import { CUES, fold, OWNER_CUES, type CueKind } from "./vocabulary.js";

/**
 * Whose is an address or a profile link? The words just before it say so on real sites:
 * "Webdesign: Pixelwerk, info@pixelwerk.de", "Datenschutzbeauftragter: …", "PEC: …",
 * "Bewerbungen an jobs@…". A cue counts where it is: in the same block before the thing
 * (`same`), in the line just before it when that line is a label (`previous`), or in the
 * heading of its section (`section`). An owner cue ("Inhaber", "Kontakt", "Contatti"…)
 * nearer to the thing than any other cue makes it the business's own (`owner`).
 */
export interface Cue {
  kind: CueKind | "owner";
  where: "same" | "previous" | "section" | "after";
}

const KINDS = Object.keys(CUES) as CueKind[];
const GLOBAL = Object.fromEntries(KINDS.map((k) => [k, new RegExp(CUES[k].source, "g")])) as Record<CueKind, RegExp>;
const OWNER_GLOBAL = new RegExp(OWNER_CUES.source, "g");

function lastIndex(pattern: RegExp, text: string): number {
  pattern.lastIndex = 0;
  let last = -1;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    last = m.index;
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return last;
}

/** The nearest cue in a short folded window (the last one wins), or undefined. */
export function nearestCue(window: string): CueKind | "owner" | undefined {
  const text = fold(window);
  let best: CueKind | "owner" | undefined;
  let bestAt = -1;
  for (const kind of KINDS) {
    const at = lastIndex(GLOBAL[kind], text);
    if (at > bestAt) [best, bestAt] = [kind, at];
  }
  const owner = lastIndex(OWNER_GLOBAL, text);
  if (owner >= bestAt && owner >= 0) return "owner";
  return best;
}

/** A block that is navigation (mostly link labels, or in a nav zone) says nothing about what follows it. */
function isNavigation(block: TextBlock): boolean {
  return block.zone === "nav" || block.linkChars > block.text.length * 0.6;
}

/**
 * Context of things on one page: the section cue of every block, computed once, and the
 * cue of a position (block, offset).
 */
export class PageContext {
  private readonly sectionCues: Array<CueKind | "owner" | undefined>;

  constructor(private readonly digest: PageDigest) {
    let current: CueKind | "owner" | undefined;
    this.sectionCues = digest.blocks.map((block) => {
      const cue = current;
      // A heading starts a new section (a neutral heading ends the previous one).
      if (block.heading && block.text.length <= 200) current = nearestCue(block.text);
      return block.heading ? nearestCue(block.text) ?? cue : cue;
    });
  }

  /**
   * The cue that governs the thing at (block, offset) spanning to `end`. Profile links
   * (`near`) only take a cue from the few words just before them in their own block: a
   * row of icons after "Website by X" in the next line is still the business's.
   */
  cueAt(blockIndex: number, offset: number, end: number, near = false): Cue | undefined {
    const block = this.digest.blocks[blockIndex];
    if (!block) return undefined;
    const after = fold(block.text.slice(end, end + 40));
    // "x@pec.it (PEC)", "jobs@… for applications": a cue right after the address.
    for (const kind of ["pec", "jobs"] as const) if (CUES[kind].test(after)) return { kind, where: "after" };
    // Words before an earlier address in the same block were about that one ("PEC: a@pec.it,
    // E-Mail: b@…"): the window starts after the last address before this thing.
    let window = block.text.slice(Math.max(0, offset - (near ? 60 : 200)), offset);
    const earlier = window.lastIndexOf("@");
    if (earlier >= 0) window = window.slice(earlier).replace(/^\S*/, "");
    const same = nearestCue(window);
    if (same) return same === "owner" ? { kind: "owner", where: "same" } : { kind: same, where: "same" };
    if (near) return undefined;
    // The label line just before ("Webdesign:" / "Datenschutzbeauftragter") when it is a label, not navigation.
    for (let i = blockIndex - 1; i >= Math.max(0, blockIndex - 2); i--) {
      const previous = this.digest.blocks[i]!;
      if (isNavigation(previous)) continue;
      // A line with its own address, or prose, is not a label of the next line.
      if (previous.text.length > 120 || previous.text.includes("@")) break;
      const cue = nearestCue(previous.text);
      if (cue) return { kind: cue, where: "previous" };
    }
    const section = this.sectionCues[blockIndex];
    return section ? { kind: section, where: "section" } : undefined;
  }
}
