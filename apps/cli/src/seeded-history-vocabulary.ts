/**
 * The words and places seeded history cases are made of (`npm run db:seed-history`).
 *
 * Each list is in rank order: the seed draws rank k with probability about
 * ln((k + 1) / k) / ln(n + 1) — Zipf-like, so the first words are in most
 * cases and the last ones in few, as in real case notes. A search benchmark
 * picks its common and rare words from the two ends.
 */

/** The words of a whitespace-separated list, in order. */
const words = (list: string): readonly string[] => list.trim().split(/\s+/);

/** What targets are: the nouns of targets and descriptions. */
export const SEED_NOUNS = words(`
  building water tower bridge river road house church field forest harbour lake mountain
  station factory park square wall gate ship lighthouse castle hill valley island beach cliff
  cave mine well statue monument fountain garden market museum library school hospital airport
  railway tunnel dam canal pier dock warehouse barn mill windmill chimney antenna mast crane
  stadium arena theatre cathedral temple mosque shrine tomb cemetery ruin fortress palace
  courtyard staircase balcony roof dome spire arch column pillar obelisk pyramid ziggurat
  quarry glacier volcano waterfall desert dune swamp marsh meadow orchard vineyard farm ranch
  pasture hedge fence path trail highway junction roundabout car truck train tram bus boat
  yacht submarine aircraft helicopter balloon satellite radar dish pipeline refinery reactor
  turbine generator substation pylon cable vault safe box envelope key ring coin watch clock
  bell mirror painting photograph map letter book manuscript sculpture vase bottle lamp candle
  chair table bed door window stair cellar attic basement corridor hall chamber office
  laboratory workshop garage shed hut cabin tent camp bunker silo tank reservoir aqueduct
  viaduct embankment levee breakwater jetty marina lock weir sluice ferry raft anchor buoy
  reef lagoon fjord estuary delta geyser crater canyon gorge plateau ridge summit pass moor
  heath tundra savanna jungle grove thicket clearing boulder monolith menhir dolmen cairn
  labyrinth observatory planetarium aquarium zoo carousel ferris gazebo pavilion belfry
  minaret pagoda stupa totem sundial astrolabe sextant
`);

/** What targets look, feel and sound like. */
export const SEED_ADJECTIVES = words(`
  old large tall red white small stone metal dark cold wooden round long narrow wide bright
  green blue grey black yellow brown ancient modern abandoned ruined busy quiet noisy wet dry
  warm hot frozen rusty shiny broken curved square flat steep deep shallow hidden sunken
  floating hollow solid glass brick concrete iron copper golden silver marble granite sandy
  muddy grassy rocky icy foggy windy stormy sunny shadowy overgrown flooded burnt painted
  carved arched domed octagonal spiral tilted crooked twin triangular humming ticking rumbling
  whistling echoing flickering glowing luminous translucent iridescent ochre vermilion
  cerulean
`);

/** The rest of a description: what the viewer perceived and did. */
export const SEED_DESCRIPTION_WORDS = words(`
  sense feeling impression shape light sound smell movement texture colour surface edge line
  corner structure people crowd figure voice hum vibration wind rain mist smoke dust sand salt
  rust moss sky horizon shadow reflection glare sparkle noise silence echo rhythm pulse
  pressure weight height depth distance direction north south east west above below inside
  outside behind beside across along around toward entrance exit opening passage boundary
  centre descend climb walk float drift spin rotate flow drip splash crumble shimmer flash
  glow vibrate buzz creak rattle clang roar whisper chant sing pray gather wait watch guard
  hide search dig build repair burn freeze melt sink rise fall open close lock seal carry lift
  pull push turn bend twist fold crack tear scrape polish paint carve weave knot tie stitch
  pattern symbol number inscription emblem flag banner sign arrow circle triangle cross star
  crescent spiral grid lattice mesh ladder rope chain wire pipe valve lever wheel gear spring
  hinge bolt rivet beam girder plank tile slate thatch moat drawbridge portcullis gargoyle
  mosaic fresco tapestry chandelier candelabra harpsichord organ metronome gramophone
  telegraph periscope theodolite barometer anemometer
`);

/** Where cases point: a city, its share of located cases and a Gaussian spread (σ, km). */
export const SEED_CITIES: readonly (readonly [string, number, number, number, number])[] = [
  ['London', 51.5074, -0.1278, 0.06, 15],
  ['New York', 40.7128, -74.006, 0.05, 15],
  ['Tokyo', 35.6762, 139.6503, 0.06, 20],
  ['Paris', 48.8566, 2.3522, 0.05, 10],
  ['Berlin', 52.52, 13.405, 0.05, 12],
  ['Los Angeles', 34.0522, -118.2437, 0.05, 25],
  ['Moscow', 55.7558, 37.6173, 0.04, 15],
  ['São Paulo', -23.5505, -46.6333, 0.04, 20],
  ['Mumbai', 19.076, 72.8777, 0.04, 15],
  ['Sydney', -33.8688, 151.2093, 0.04, 20],
  ['Cairo', 30.0444, 31.2357, 0.03, 12],
  ['Mexico City', 19.4326, -99.1332, 0.03, 15],
  ['Beijing', 39.9042, 116.4074, 0.03, 20],
  ['Istanbul', 41.0082, 28.9784, 0.03, 12],
  ['Buenos Aires', -34.6037, -58.3816, 0.03, 15],
  ['Lagos', 6.5244, 3.3792, 0.02, 12],
  ['Johannesburg', -26.2041, 28.0473, 0.02, 15],
  ['Toronto', 43.6532, -79.3832, 0.02, 15],
  ['Chicago', 41.8781, -87.6298, 0.02, 15],
  ['San Francisco', 37.7749, -122.4194, 0.02, 10],
  ['Seattle', 47.6062, -122.3321, 0.02, 10],
  ['Madrid', 40.4168, -3.7038, 0.02, 10],
  ['Rome', 41.9028, 12.4964, 0.02, 10],
  ['Vienna', 48.2082, 16.3738, 0.02, 8],
  ['Stockholm', 59.3293, 18.0686, 0.02, 10],
  ['Reykjavik', 64.1466, -21.9426, 0.01, 8],
  ['Singapore', 1.3521, 103.8198, 0.02, 8],
  ['Hong Kong', 22.3193, 114.1694, 0.02, 8],
  ['Seoul', 37.5665, 126.978, 0.02, 12],
  ['Bangkok', 13.7563, 100.5018, 0.02, 12],
  ['Jakarta', -6.2088, 106.8456, 0.02, 15],
  ['Nairobi', -1.2921, 36.8219, 0.01, 10],
  ['Lima', -12.0464, -77.0428, 0.01, 10],
  ['Anchorage', 61.2181, -149.9003, 0.01, 10],
  ['Honolulu', 21.3069, -157.8583, 0.01, 8],
  ['Auckland', -36.8485, 174.7633, 0.01, 10],
  ['Fiji (Suva)', -18.1248, 178.4501, 0.01, 8],
];
