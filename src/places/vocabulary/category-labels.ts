import { GENERIC_VALUES } from "./place-tags.js";

/**
 * Readable category labels for OSM tag values and Overture category ids, the words a
 * user types ("dentist", "hairdresser", "italian restaurant"). A value missing from the
 * tables falls back to its id with `_` as spaces ("car_repair" → "car repair"), which is
 * readable for nearly all of OSM's and Overture's vocabularies.
 */

/** OSM `key=value` → labels (first is the main one). */
export const OSM_LABELS: Readonly<Record<string, readonly string[]>> = {
  // amenity: food and drink
  "amenity=restaurant": ["restaurant"],
  "amenity=fast_food": ["fast food"],
  "amenity=cafe": ["cafe"],
  "amenity=bar": ["bar"],
  "amenity=pub": ["pub", "bar"],
  "amenity=biergarten": ["beer garden", "bar"],
  "amenity=ice_cream": ["ice cream shop"],
  "amenity=food_court": ["food court"],
  "amenity=nightclub": ["nightclub"],
  // amenity: health
  "amenity=dentist": ["dentist"],
  "amenity=doctors": ["doctor", "medical practice"],
  "amenity=clinic": ["clinic"],
  "amenity=hospital": ["hospital"],
  "amenity=pharmacy": ["pharmacy"],
  "amenity=veterinary": ["veterinarian", "vet"],
  // amenity: services
  "amenity=bank": ["bank"],
  "amenity=bureau_de_change": ["currency exchange"],
  "amenity=post_office": ["post office"],
  "amenity=fuel": ["gas station", "fuel station"],
  "amenity=car_wash": ["car wash"],
  "amenity=car_rental": ["car rental"],
  "amenity=driving_school": ["driving school"],
  "amenity=kindergarten": ["kindergarten", "childcare"],
  "amenity=childcare": ["childcare"],
  "amenity=school": ["school"],
  "amenity=language_school": ["language school"],
  "amenity=music_school": ["music school"],
  "amenity=cinema": ["cinema"],
  "amenity=theatre": ["theatre"],
  "amenity=arts_centre": ["arts centre"],
  "amenity=community_centre": ["community centre"],
  "amenity=coworking_space": ["coworking space"],
  "amenity=marketplace": ["market"],
  "amenity=casino": ["casino"],
  "amenity=events_venue": ["event venue"],
  "amenity=studio": ["studio"],
  // healthcare=*
  "healthcare=dentist": ["dentist"],
  "healthcare=doctor": ["doctor", "medical practice"],
  "healthcare=physiotherapist": ["physiotherapist"],
  "healthcare=psychotherapist": ["psychotherapist"],
  "healthcare=optometrist": ["optometrist"],
  "healthcare=alternative": ["alternative medicine"],
  "healthcare=laboratory": ["medical laboratory"],
  "healthcare=pharmacy": ["pharmacy"],
  "healthcare=hospital": ["hospital"],
  "healthcare=clinic": ["clinic"],
  // shop=*
  "shop=hairdresser": ["hairdresser", "hair salon"],
  "shop=beauty": ["beauty salon"],
  "shop=cosmetics": ["cosmetics store"],
  "shop=bakery": ["bakery"],
  "shop=pastry": ["pastry shop", "bakery"],
  "shop=butcher": ["butcher"],
  "shop=supermarket": ["supermarket", "grocery store"],
  "shop=convenience": ["convenience store"],
  "shop=greengrocer": ["greengrocer"],
  "shop=deli": ["delicatessen"],
  "shop=confectionery": ["confectionery"],
  "shop=chocolate": ["chocolate shop"],
  "shop=coffee": ["coffee shop"],
  "shop=tea": ["tea shop"],
  "shop=wine": ["wine shop"],
  "shop=alcohol": ["liquor store"],
  "shop=beverages": ["beverage store"],
  "shop=kiosk": ["kiosk"],
  "shop=clothes": ["clothing store"],
  "shop=shoes": ["shoe store"],
  "shop=bag": ["bag store"],
  "shop=boutique": ["boutique"],
  "shop=fashion_accessories": ["fashion accessories store"],
  "shop=jewelry": ["jewelry store", "jeweller"],
  "shop=watches": ["watch store"],
  "shop=optician": ["optician"],
  "shop=chemist": ["drugstore"],
  "shop=medical_supply": ["medical supply store"],
  "shop=hearing_aids": ["hearing aid store"],
  "shop=florist": ["florist"],
  "shop=garden_centre": ["garden centre"],
  "shop=gift": ["gift shop"],
  "shop=books": ["bookstore"],
  "shop=stationery": ["stationery store"],
  "shop=newsagent": ["newsagent"],
  "shop=toys": ["toy store"],
  "shop=sports": ["sporting goods store"],
  "shop=outdoor": ["outdoor store"],
  "shop=bicycle": ["bicycle shop"],
  "shop=car": ["car dealer"],
  "shop=car_repair": ["car repair", "garage"],
  "shop=car_parts": ["car parts store"],
  "shop=tyres": ["tyre shop"],
  "shop=motorcycle": ["motorcycle dealer"],
  "shop=electronics": ["electronics store"],
  "shop=computer": ["computer store"],
  "shop=mobile_phone": ["mobile phone store"],
  "shop=hifi": ["hifi store"],
  "shop=furniture": ["furniture store"],
  "shop=interior_decoration": ["interior decoration store"],
  "shop=kitchen": ["kitchen store"],
  "shop=bed": ["bed store"],
  "shop=hardware": ["hardware store"],
  "shop=doityourself": ["diy store", "hardware store"],
  "shop=paint": ["paint store"],
  "shop=houseware": ["houseware store"],
  "shop=department_store": ["department store"],
  "shop=mall": ["shopping mall"],
  "shop=variety_store": ["variety store"],
  "shop=second_hand": ["second hand store"],
  "shop=charity": ["charity shop"],
  "shop=antiques": ["antique store"],
  "shop=art": ["art shop"],
  "shop=photo": ["photo store"],
  "shop=music": ["music store"],
  "shop=musical_instrument": ["musical instrument store"],
  "shop=pet": ["pet store"],
  "shop=tobacco": ["tobacco shop"],
  "shop=e-cigarette": ["vape shop"],
  "shop=travel_agency": ["travel agency"],
  "shop=laundry": ["laundry"],
  "shop=dry_cleaning": ["dry cleaner"],
  "shop=tailor": ["tailor"],
  "shop=massage": ["massage"],
  "shop=tattoo": ["tattoo studio"],
  "shop=copyshop": ["copy shop"],
  "shop=funeral_directors": ["funeral home"],
  "shop=ticket": ["ticket office"],
  "shop=lottery": ["lottery shop"],
  "shop=perfumery": ["perfumery"],
  "shop=frame": ["framing shop"],
  "shop=fabric": ["fabric store"],
  "shop=erotic": ["adult store"],
  // office=*
  "office=lawyer": ["lawyer", "law firm"],
  "office=notary": ["notary"],
  "office=accountant": ["accountant"],
  "office=tax_advisor": ["tax advisor"],
  "office=financial": ["financial services"],
  "office=financial_advisor": ["financial advisor"],
  "office=insurance": ["insurance agency"],
  "office=estate_agent": ["real estate agent"],
  "office=architect": ["architect"],
  "office=engineer": ["engineering office"],
  "office=it": ["it services"],
  "office=company": ["company"],
  "office=consulting": ["consultant"],
  "office=advertising_agency": ["advertising agency"],
  "office=employment_agency": ["employment agency"],
  "office=travel_agent": ["travel agency"],
  "office=physician": ["doctor"],
  "office=therapist": ["therapist"],
  "office=coworking": ["coworking space"],
  "office=telecommunication": ["telecommunications"],
  "office=logistics": ["logistics"],
  "office=association": ["association"],
  "office=ngo": ["non-profit organisation"],
  "office=foundation": ["foundation"],
  "office=government": ["government office"],
  // craft=*
  "craft=electrician": ["electrician"],
  "craft=plumber": ["plumber"],
  "craft=carpenter": ["carpenter"],
  "craft=joiner": ["joiner", "carpenter"],
  "craft=painter": ["painter"],
  "craft=roofer": ["roofer"],
  "craft=hvac": ["hvac contractor"],
  "craft=locksmith": ["locksmith"],
  "craft=photographer": ["photographer"],
  "craft=gardener": ["gardener"],
  "craft=tiler": ["tiler"],
  "craft=metal_construction": ["metalworker"],
  "craft=brewery": ["brewery"],
  "craft=winery": ["winery"],
  "craft=confectionery": ["confectionery"],
  "craft=caterer": ["caterer"],
  "craft=shoemaker": ["shoemaker"],
  "craft=tailor": ["tailor"],
  "craft=dressmaker": ["dressmaker"],
  "craft=watchmaker": ["watchmaker"],
  "craft=jeweller": ["jeweller"],
  "craft=optician": ["optician"],
  "craft=printer": ["printer"],
  "craft=stonemason": ["stonemason"],
  "craft=window_construction": ["window maker"],
  // tourism=*
  "tourism=hotel": ["hotel"],
  "tourism=motel": ["motel", "hotel"],
  "tourism=hostel": ["hostel"],
  "tourism=guest_house": ["guest house"],
  "tourism=apartment": ["holiday apartment"],
  "tourism=chalet": ["chalet"],
  "tourism=camp_site": ["campsite"],
  "tourism=caravan_site": ["caravan site"],
  "tourism=museum": ["museum"],
  "tourism=gallery": ["art gallery"],
  "tourism=zoo": ["zoo"],
  "tourism=theme_park": ["theme park"],
  "tourism=aquarium": ["aquarium"],
  "tourism=wine_cellar": ["wine cellar"],
};

/** Amenities that take a cuisine qualifier: amenity=restaurant + cuisine=italian → "italian restaurant". */
const CUISINE_HOSTS: Record<string, string> = {
  "amenity=restaurant": "restaurant",
  "amenity=fast_food": "fast food",
  "amenity=cafe": "cafe",
};

/** OSM cuisine ids whose readable form differs from the id. */
const CUISINE_NAMES: Record<string, string> = {
  regional: "regional",
  coffee_shop: "coffee",
  ice_cream: "ice cream",
  fish_and_chips: "fish and chips",
};

/** Overture category ids whose readable form is not simply the id with spaces. */
const OVERTURE_LABELS: Record<string, string[]> = {
  health_and_medical: ["health and medical"],
  beauty_salon: ["beauty salon"],
  hair_salon: ["hair salon", "hairdresser"],
  barber: ["barber", "hairdresser"],
  dentist: ["dentist"],
  general_dentistry: ["dentist"],
  cosmetic_dentist: ["cosmetic dentist", "dentist"],
  orthodontist: ["orthodontist", "dentist"],
  lawyer: ["lawyer"],
  attorneys_and_law_firms: ["lawyer", "law firm"],
  accommodation: ["accommodation"],
  professional_services: ["professional services"],
  automotive_repair: ["car repair"],
  auto_repair: ["car repair"],
  gas_station: ["gas station", "fuel station"],
  coffee_shop: ["coffee shop", "cafe"],
  cafe: ["cafe"],
  bar: ["bar"],
  pub: ["pub", "bar"],
  real_estate_agent: ["real estate agent"],
  real_estate: ["real estate"],
  insurance_agency: ["insurance agency"],
  doctor: ["doctor"],
  plumbing: ["plumber"],
  plumber: ["plumber"],
  electrician: ["electrician"],
  hotel: ["hotel"],
  supermarket: ["supermarket", "grocery store"],
  grocery_store: ["grocery store"],
};

export function humanise(id: string): string {
  return id.replace(/[_]+/g, " ").replace(/\s+/g, " ").trim().toLowerCase();
}


/**
 * Labels for the business tags of one OSM element, main tag first. `cuisine` may hold
 * several ids (`italian;pizza`): each qualifies the food amenity and is a label alone too.
 */
export function osmCategoryLabels(tags: Record<string, string>, businessKeys: readonly string[]): string[] {
  const labels: string[] = [];
  const cuisines = !tags.cuisine ? [] : tags.cuisine
    .split(";")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && !GENERIC_VALUES.has(c))
    .map((c) => CUISINE_NAMES[c] ?? humanise(c));
  for (const key of businessKeys) {
    const rawValue = tags[key];
    if (!rawValue) continue;
    for (const part of rawValue.split(";")) {
      const value = part.trim().toLowerCase();
      if (value === "" || GENERIC_VALUES.has(value)) continue;
      const tag = `${key}=${value}`;
      labels.push(...(OSM_LABELS[tag] ?? [humanise(value)]));
      const host = CUISINE_HOSTS[tag];
      if (host) for (const cuisine of cuisines) labels.push(`${cuisine} ${host}`);
    }
  }
  // A cuisine on a shop or office (rare) still says something worth matching.
  if (labels.length === 0) labels.push(...cuisines);
  return labels;
}

/**
 * Labels for an Overture place: the primary category first, then the alternates.
 * "italian_restaurant" → "italian restaurant" and also "restaurant", so "restaurant" finds it.
 */
export function overtureCategoryLabels(primary: string | null | undefined, alternates: readonly (string | null | undefined)[]): string[] {
  const labels: string[] = [];
  for (const id of [primary, ...alternates]) {
    if (!id) continue;
    const key = id.trim().toLowerCase();
    const mapped = OVERTURE_LABELS[key];
    if (mapped) {
      labels.push(...mapped);
      continue;
    }
    const label = humanise(key);
    labels.push(label);
    const tail = /\b(restaurant|store|shop|dentist|lawyer|salon|bar|cafe|hotel|clinic)$/.exec(label);
    if (tail && tail[1] !== label) labels.push(tail[1]!);
  }
  return labels;
}
