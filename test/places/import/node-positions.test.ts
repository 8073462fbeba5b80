import { describe, expect, test } from "vitest";
import { NodePositions } from "../../../src/places/import/importers/node-positions.js";

describe("node positions (the coordinates pass's typed store)", () => {
  test("keeps only the nodes asked for, once each, whether the file streams them in id order or not", () => {
    for (const order of ["ascending", "shuffled"] as const) {
      const nodes = new NodePositions();
      for (const id of [30, 10, 2 ** 40 + 1, 10, 20]) nodes.want(id);
      expect(nodes.size).toBe(4);
      const stream = [5, 10, 15, 20, 25, 30, 2 ** 40, 2 ** 40 + 1];
      if (order === "shuffled") stream.reverse();
      for (const id of stream) nodes.set(id, id / 100, -id / 100);
      // A later sighting of the same node does not move it.
      nodes.set(10, 99, 99);
      expect(nodes.allKnown).toBe(true);
      expect(nodes.found).toBe(4);
      expect(nodes.get(10)).toEqual({ lat: 0.1, lng: -0.1 });
      expect(nodes.get(2 ** 40 + 1)).toEqual({ lat: (2 ** 40 + 1) / 100, lng: -(2 ** 40 + 1) / 100 });
      expect(nodes.get(15)).toBeUndefined();
    }
  });

  test("a node the file does not hold stays unknown (a clipped extract)", () => {
    const nodes = new NodePositions();
    nodes.want(7);
    nodes.want(8);
    nodes.set(8, 1, 2);
    expect(nodes.allKnown).toBe(false);
    expect(nodes.get(7)).toBeUndefined();
    expect(nodes.get(8)).toEqual({ lat: 1, lng: 2 });
    expect(() => nodes.want(9)).toThrow(/after the node pass/);
  });
});
