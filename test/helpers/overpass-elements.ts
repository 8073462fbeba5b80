import { offsetKm, VADUZ } from "./places.js";

/** Real-shaped OSM elements around Vaduz: what an Overpass server would hold. */
export const VADUZ_ELEMENTS = [
  { type: "node", id: 101, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.2, 0), tags: { amenity: "restaurant", name: "Restaurant Adler", cuisine: "regional;italian", website: "https://adler-vaduz.li", phone: "+423 232 21 31", "addr:street": "Herrengasse", "addr:housenumber": "2", "addr:postcode": "9490", "addr:city": "Vaduz" } },
  { type: "way", id: 202, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.5, 0.5), tags: { amenity: "restaurant", name: "Pizzeria Roma", "addr:city": "Vaduz" } },
  { type: "node", id: 303, ...offsetKm(VADUZ.lat, VADUZ.lng, -0.4, 0.1), tags: { amenity: "fast_food", cuisine: "pizza;burger", name: "Quick Pizza" } },
  { type: "node", id: 404, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.1, -0.3), tags: { shop: "bakery", name: "Bäckerei Wanger", email: "info@wanger.li" } },
  { type: "node", id: 505, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.05, 0.05), tags: { amenity: "dentist", name: "Dentists Vaduz" } },
  { type: "node", id: 606, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.3, 0.3), tags: { amenity: "parking", name: "Parkhaus Marktplatz" } },
  { type: "node", id: 707, ...offsetKm(VADUZ.lat, VADUZ.lng, 20, 0), tags: { amenity: "restaurant", name: "Far Away Restaurant" } },
  { type: "node", id: 808, ...offsetKm(VADUZ.lat, VADUZ.lng, 0.2, 0.2), tags: { amenity: "bank", name: "Pizza Bank" } },
];
