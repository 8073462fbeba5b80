import { PlacesRepo, type PlaceWrite } from "../../src/places/store/places.js";
import { createTestInstance } from "./instance.js";

/** A place in the write side's column form, with every field defaulted. */
export function placeWrite(placeId: string, fields: Partial<PlaceWrite> = {}): PlaceWrite {
  return {
    placeId, name: placeId, address: "somewhere", street: null, housenumber: null, postcode: null, city: null, country: null,
    lat: 47.14, lng: 9.52, website: null, phone: null, email: null, socials: null, rating: null, categories: "[]",
    categoryText: "", categoryTags: "", cuisine: null, brand: null, description: null, openingHours: null, provenance: null, ...fields,
  };
}

/** A test instance's places repository and a way to start a source in it. */
export function placesRepoSetup() {
  const instance = createTestInstance();
  const db = instance.services.deps.db;
  const repo = new PlacesRepo(db);
  const source = (name: string) => repo.beginSource({ kind: "csv", name, dataDate: null, licence: "x", attribution: "x", now: "2026-11-22T10:00:00Z" });
  return { db, repo, source };
}
