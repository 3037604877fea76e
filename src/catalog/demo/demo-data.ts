/*
 * The raw material of the demo catalogue: themes, people, places, collections.
 * Everything here is invented (names, venues, events); places are real cities.
 */

export type ThemeKey = 'city' | 'nature' | 'business' | 'food' | 'sport' | 'music' | 'science';
export type Segment = 'archival' | 'entertainment' | 'news' | 'publicity' | 'royalty' | 'sport';

export interface Theme {
  key: ThemeKey;
  /** Creative titles; {city} and {time} are filled in. */
  creativeTitles: readonly string[];
  /** A sentence that follows the title in a creative caption. */
  creativeCaptions: readonly string[];
  /** Editorial titles; {person} and {event} are filled in. */
  editorialTitles: readonly string[];
  /** What the people in editorial pictures of this theme are. */
  role: string;
  keywords: readonly string[];
  segments: readonly Segment[];
  /** Collection code of editorial assets of this theme. */
  editorialCollection: string;
  /** Artists (indexes into ARTISTS) who shoot this theme. */
  creativeArtists: readonly number[];
  editorialArtists: readonly number[];
  /** Hex colours for drawDemoImage: sky top, horizon, sun, far land, near land, accent. */
  palettes: readonly (readonly string[])[];
}

export const THEMES: readonly Theme[] = [
  {
    key: 'city',
    creativeTitles: [
      'Skyline of {city} at {time}',
      'Commuters crossing a busy intersection in {city}',
      'Rooftop view over {city} at {time}',
      'Cyclist riding through the old town of {city}',
      'Tram passing a quiet street in {city}',
    ],
    creativeCaptions: [
      'City life in motion, with copy space above the rooftops.',
      'An everyday scene of urban living and public transport.',
      'Warm light falls across the facades of the old quarter.',
    ],
    editorialTitles: [
      'Residents gather in the streets during the {event}',
      '{person} addresses the crowd at the {event}',
      'Crowds fill the city centre for the {event}',
    ],
    role: 'organiser',
    keywords: ['city', 'urban', 'street', 'architecture', 'people', 'travel', 'skyline', 'crowd', 'downtown', 'night'],
    segments: ['news'],
    editorialCollection: 'NWS',
    creativeArtists: [2, 4, 6],
    editorialArtists: [0, 3, 5],
    palettes: [
      ['#1c2541', '#f2a65a', '#ffe8c2', '#3a506b', '#0b132b', '#ffd166'],
      ['#22223b', '#c9ada7', '#f2e9e4', '#4a4e69', '#1b1b2f', '#f4a261'],
    ],
  },
  {
    key: 'nature',
    creativeTitles: [
      'Mountain lake at {time}',
      'Rolling hills under a wide sky at {time}',
      'Rocky coastline with waves at {time}',
      'Pine forest in the morning mist',
      'Wildflower meadow below snow-capped peaks',
    ],
    creativeCaptions: [
      'A tranquil scene of unspoiled nature, far from the city.',
      'Soft light over a wide landscape; no people.',
      'Scenic view for travel and outdoor themes.',
    ],
    editorialTitles: ['Visitors watch the sunrise during the {event}'],
    role: 'ranger',
    keywords: ['nature', 'landscape', 'mountain', 'lake', 'forest', 'sunset', 'outdoors', 'scenics', 'tranquility', 'travel'],
    segments: ['news'],
    editorialCollection: 'NWS',
    creativeArtists: [7, 4, 6],
    editorialArtists: [0, 3],
    palettes: [
      ['#3a7bd5', '#cfe8fc', '#ffffff', '#7fa889', '#3f6b3a', '#f2c14e'],
      ['#134e5e', '#a8e6cf', '#fdfbd4', '#4f8a6f', '#1f4d3a', '#ffb347'],
      ['#2b1846', '#ff7e5f', '#ffd3a5', '#6a3d5c', '#231629', '#feb47b'],
    ],
  },
  {
    key: 'business',
    creativeTitles: [
      'Team meeting in a bright office',
      'Businesswoman presenting to colleagues',
      'Coworkers brainstorming with sticky notes',
      'Handshake after a successful negotiation',
      'Laptop and coffee on a desk by the window',
    ],
    creativeCaptions: [
      'A modern workplace with natural light and a diverse team.',
      'Collaboration and communication in a creative studio.',
      'Concept of teamwork, planning and success.',
    ],
    editorialTitles: [
      '{person} speaks on stage at the {event}',
      'Delegates arrive for the opening of the {event}',
      '{person} takes part in a panel discussion at the {event}',
    ],
    role: 'chief executive',
    keywords: ['business', 'office', 'teamwork', 'meeting', 'technology', 'laptop', 'people', 'success', 'communication', 'working'],
    segments: ['news'],
    editorialCollection: 'NWS',
    creativeArtists: [2, 6, 4],
    editorialArtists: [0, 5],
    palettes: [
      ['#dfe7ef', '#f7f9fb', '#ffffff', '#9fb3c8', '#486581', '#f0b429'],
      ['#e4e7eb', '#fdfdfd', '#fff7e6', '#7b8794', '#323f4b', '#3ebd93'],
    ],
  },
  {
    key: 'food',
    creativeTitles: [
      'Fresh vegetables on a wooden table',
      'Bowl of ramen with chopsticks',
      'Friends sharing a meal outdoors at {time}',
      'Baker dusting flour over bread dough',
      'Colourful fruit stall at a market in {city}',
    ],
    creativeCaptions: [
      'Healthy eating with fresh, seasonal ingredients.',
      'Overhead view with room for text.',
      'Food and drink, home cooking and hospitality.',
    ],
    editorialTitles: [
      'Visitors sample dishes at the {event}',
      '{person} cooks at a stall during the {event}',
    ],
    role: 'chef',
    keywords: ['food', 'healthy eating', 'freshness', 'vegetable', 'restaurant', 'cooking', 'meal', 'table', 'organic', 'people'],
    segments: ['news'],
    editorialCollection: 'NWS',
    creativeArtists: [8, 6, 2],
    editorialArtists: [3, 0],
    palettes: [
      ['#7f5539', '#ede0d4', '#fff8e7', '#b08968', '#582f0e', '#e63946'],
      ['#606c38', '#fefae0', '#ffffff', '#dda15e', '#283618', '#bc6c25'],
    ],
  },
  {
    key: 'sport',
    creativeTitles: [
      'Runner on a mountain trail at {time}',
      'Cyclist climbing a winding road',
      'Swimmer in an outdoor pool',
      'Basketball court at {time}',
      'Group yoga session in a park in {city}',
    ],
    creativeCaptions: [
      'Active lifestyle, endurance and determination.',
      'Exercise outdoors with motion and energy.',
      'Healthy living and fitness in the open air.',
    ],
    editorialTitles: [
      '{person} celebrates during the {event}',
      '{person} competes at the {event}',
      'Fans cheer from the stands at the {event}',
      '{person} crosses the finish line at the {event}',
    ],
    role: 'athlete',
    keywords: ['sport', 'exercising', 'running', 'athlete', 'competition', 'stadium', 'healthy lifestyle', 'outdoors', 'motion', 'people'],
    segments: ['sport'],
    editorialCollection: 'SPT',
    creativeArtists: [1, 6, 4],
    editorialArtists: [1, 5],
    palettes: [
      ['#0077b6', '#caf0f8', '#ffffff', '#48cae4', '#023e8a', '#ff006e'],
      ['#264653', '#e9c46a', '#fff3b0', '#2a9d8f', '#1d3557', '#e76f51'],
    ],
  },
  {
    key: 'music',
    creativeTitles: [
      'Crowd with raised hands at a concert',
      'Guitarist on stage under spotlights',
      'Festival tents at {time}',
      'Drummer in silhouette against stage lights',
      'Vinyl records in a shop in {city}',
    ],
    creativeCaptions: [
      'Live music, nightlife and summer festival atmosphere.',
      'Stage lights and a cheering audience.',
      'Arts, culture and entertainment.',
    ],
    editorialTitles: [
      '{person} performs on stage during the {event}',
      'Festival goers dance in front of the main stage at the {event}',
      '{person} arrives backstage at the {event}',
    ],
    role: 'musician',
    keywords: ['music', 'music festival', 'concert', 'crowd', 'stage', 'performance', 'nightlife', 'people', 'guitar', 'arts culture and entertainment'],
    segments: ['entertainment'],
    editorialCollection: 'ENT',
    creativeArtists: [10, 2, 4],
    editorialArtists: [10, 0],
    palettes: [
      ['#10002b', '#9d4edd', '#e0aaff', '#3c096c', '#0b0014', '#ff5d8f'],
      ['#03071e', '#dc2f02', '#ffba08', '#370617', '#000000', '#f48c06'],
    ],
  },
  {
    key: 'science',
    creativeTitles: [
      'Scientist examining a sample under a microscope',
      'Test tubes with coloured liquid in a rack',
      'Engineer adjusting a robotic arm',
      'Solar panels under a clear sky at {time}',
      'Researcher looking at data on a screen',
    ],
    creativeCaptions: [
      'Research and innovation in a modern laboratory.',
      'Technology, engineering and discovery.',
      'Concept of science, healthcare and progress.',
    ],
    editorialTitles: [
      '{person} presents new findings at the {event}',
      'Visitors look at exhibits during the {event}',
      '{person} answers questions at the {event}',
    ],
    role: 'researcher',
    keywords: ['science', 'laboratory', 'research', 'technology', 'scientist', 'microscope', 'innovation', 'chemistry', 'engineering', 'people'],
    segments: ['news'],
    editorialCollection: 'NWS',
    creativeArtists: [11, 2, 6],
    editorialArtists: [11, 3],
    palettes: [
      ['#caf0f8', '#f8f9fa', '#ffffff', '#90e0ef', '#0077b6', '#00b4d8'],
      ['#d8e2dc', '#ffffff', '#ffffff', '#9d8189', '#2b2d42', '#8ecae6'],
    ],
  },
];

/** Grey palette for black-and-white pictures. */
export const MONOCHROME_PALETTE = ['#2b2b2b', '#d9d9d9', '#f5f5f5', '#8a8a8a', '#1a1a1a', '#bdbdbd'];

export const TIMES = ['dawn', 'sunrise', 'midday', 'sunset', 'dusk', 'night'] as const;

export interface Artist {
  name: string;
  title: string;
}

export const ARTISTS: readonly Artist[] = [
  { name: 'Maren Holt', title: 'Staff Photographer' },
  { name: 'Tomás Reyes', title: 'Sports Photographer' },
  { name: 'Aiko Tanaka', title: 'Contributor' },
  { name: 'Daniel Okafor', title: 'Photojournalist' },
  { name: 'Léa Fontaine', title: 'Freelance Photographer' },
  { name: 'Jonas Weber', title: 'Staff Photographer' },
  { name: 'Priya Raman', title: 'Contributor' },
  { name: 'Samuel Lindqvist', title: 'Landscape Photographer' },
  { name: 'Carmen Ortiz', title: 'Food Photographer' },
  { name: 'Noah Bennett', title: 'Videographer' },
  { name: 'Hana Kowalska', title: 'Entertainment Photographer' },
  { name: 'Elliot Grant', title: 'Science Photographer' },
];

export interface Collection {
  id: number;
  code: string;
  name: string;
  family: 'creative' | 'editorial';
  license_model: 'royaltyfree' | 'rightsmanaged';
  product_types: readonly string[];
}

export const COLLECTIONS: readonly Collection[] = [
  {
    id: 101,
    code: 'STK',
    name: 'Stockroom Creative',
    family: 'creative',
    license_model: 'royaltyfree',
    product_types: ['easyaccess', 'royaltyfreesubscription', 'creditpack', 'imagepack'],
  },
  {
    id: 102,
    code: 'VIS',
    name: 'Vista Images',
    family: 'creative',
    license_model: 'royaltyfree',
    product_types: ['easyaccess', 'royaltyfreesubscription', 'creditpack'],
  },
  {
    id: 103,
    code: 'LUM',
    name: 'Lumen Signature',
    family: 'creative',
    license_model: 'rightsmanaged',
    product_types: ['premiumaccess', 'creditpack'],
  },
  {
    id: 201,
    code: 'NWS',
    name: 'News Wire',
    family: 'editorial',
    license_model: 'royaltyfree',
    product_types: ['editorialsubscription', 'premiumaccess', 'easyaccess'],
  },
  {
    id: 202,
    code: 'SPT',
    name: 'Sport',
    family: 'editorial',
    license_model: 'royaltyfree',
    product_types: ['editorialsubscription', 'premiumaccess', 'easyaccess'],
  },
  {
    id: 203,
    code: 'ENT',
    name: 'Entertainment',
    family: 'editorial',
    license_model: 'rightsmanaged',
    product_types: ['premiumaccess', 'editorialsubscription'],
  },
];

export interface Place {
  city: string;
  state_province: string;
  country: string;
  /** Wikidata entity of the city. */
  entity: string;
}

export const PLACES: readonly Place[] = [
  { city: 'Sydney', state_province: 'New South Wales', country: 'Australia', entity: 'Q3130' },
  { city: 'Toronto', state_province: 'Ontario', country: 'Canada', entity: 'Q172' },
  { city: 'London', state_province: 'England', country: 'United Kingdom', entity: 'Q84' },
  { city: 'Berlin', state_province: 'Berlin', country: 'Germany', entity: 'Q64' },
  { city: 'Madrid', state_province: 'Community of Madrid', country: 'Spain', entity: 'Q2807' },
  { city: 'Paris', state_province: 'Île-de-France', country: 'France', entity: 'Q90' },
  { city: 'Tokyo', state_province: 'Tokyo', country: 'Japan', entity: 'Q1490' },
  { city: 'New York City', state_province: 'New York', country: 'United States', entity: 'Q60' },
];

export interface EventTemplate {
  theme: ThemeKey;
  name: string;
  type: string;
  /** Index into PLACES. */
  place: number;
  venue: string;
  /** Name suffix of a child event (a day or session of this one). */
  childLabel: string;
  /** Segments beside its theme's: a royal guest, a publicity call, an archive of the event. */
  extraSegments?: readonly Segment[];
}

export const EVENT_TEMPLATES: readonly EventTemplate[] = [
  { theme: 'sport', name: 'Harbourside Marathon', type: 'Sport', place: 0, venue: 'Harbour Promenade', childLabel: 'Elite Race' },
  { theme: 'music', name: 'Northern Lights Music Festival', type: 'Music Festival', place: 1, venue: 'Lakeshore Park', childLabel: 'Day 2', extraSegments: ['publicity'] },
  { theme: 'business', name: 'Global Fintech Summit', type: 'Conference', place: 2, venue: 'Riverside Convention Centre', childLabel: 'Keynotes' },
  { theme: 'science', name: 'European Space Science Conference', type: 'Conference', place: 4, venue: 'Palacio de Congresos Norte', childLabel: 'Poster Session' },
  { theme: 'city', name: 'City Climate March', type: 'Demonstration', place: 3, venue: 'Central Square', childLabel: 'Evening Rally' },
  { theme: 'food', name: 'International Street Food Fair', type: 'Fair', place: 5, venue: 'Canal Market Halls', childLabel: 'Awards Night' },
  { theme: 'sport', name: 'National Athletics Championships', type: 'Sport', place: 6, venue: 'Bayside Stadium', childLabel: 'Finals' },
  { theme: 'music', name: 'Riverside Jazz Weekend', type: 'Music Festival', place: 7, venue: 'Pier 9 Lawn', childLabel: 'Closing Night', extraSegments: ['archival'] },
  { theme: 'business', name: 'Future of Work Forum', type: 'Conference', place: 1, venue: 'Harbourfront Hall', childLabel: 'Panel Day' },
  { theme: 'science', name: 'Ocean Research Symposium', type: 'Conference', place: 0, venue: 'Marine Science Institute', childLabel: 'Field Day' },
  { theme: 'city', name: 'Lantern Parade', type: 'Celebration', place: 2, venue: 'Old Town Streets', childLabel: 'Night Procession', extraSegments: ['royalty'] },
  { theme: 'music', name: 'Summer Sound Festival', type: 'Music Festival', place: 3, venue: 'Airfield Park', childLabel: 'Main Stage' },
];

export const FIRST_NAMES = ['Ava', 'Lucas', 'Mila', 'Kenji', 'Sofia', 'Omar', 'Ingrid', 'Rafael', 'Zara', 'Felix', 'Nadia', 'Hugo', 'Leni', 'Mateo'];
export const LAST_NAMES = ['Marsh', 'Okoye', 'Lindgren', 'Moreau', 'Castillo', 'Sato', 'Brandt', 'Novak', 'Haddad', 'Quinn', 'Ferreira', 'Adeyemi'];

/** Translations of the most common keywords, by language tag. */
export const KEYWORD_TRANSLATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  city: { de: 'Stadt', fr: 'ville', es: 'ciudad', ja: '都市' },
  people: { de: 'Menschen', fr: 'personnes', es: 'personas', ja: '人々' },
  travel: { de: 'Reise', fr: 'voyage', es: 'viaje', ja: '旅行' },
  nature: { de: 'Natur', fr: 'nature', es: 'naturaleza', ja: '自然' },
  landscape: { de: 'Landschaft', fr: 'paysage', es: 'paisaje', ja: '風景' },
  business: { de: 'Geschäft', fr: 'affaires', es: 'negocios', ja: 'ビジネス' },
  food: { de: 'Essen', fr: 'nourriture', es: 'comida', ja: '食べ物' },
  sport: { de: 'Sport', fr: 'sport', es: 'deporte', ja: 'スポーツ' },
  music: { de: 'Musik', fr: 'musique', es: 'música', ja: '音楽' },
  science: { de: 'Wissenschaft', fr: 'science', es: 'ciencia', ja: '科学' },
  'music festival': { de: 'Musikfestival', fr: 'festival de musique', es: 'festival de música', ja: '音楽フェスティバル' },
  sunset: { de: 'Sonnenuntergang', fr: 'coucher de soleil', es: 'puesta de sol', ja: '夕焼け' },
  technology: { de: 'Technologie', fr: 'technologie', es: 'tecnología', ja: 'テクノロジー' },
  outdoors: { de: 'im Freien', fr: 'en plein air', es: 'al aire libre', ja: '屋外' },
  crowd: { de: 'Menschenmenge', fr: 'foule', es: 'multitud', ja: '群衆' },
  concert: { de: 'Konzert', fr: 'concert', es: 'concierto', ja: 'コンサート' },
  office: { de: 'Büro', fr: 'bureau', es: 'oficina', ja: 'オフィス' },
  mountain: { de: 'Berg', fr: 'montagne', es: 'montaña', ja: '山' },
  teamwork: { de: 'Teamarbeit', fr: "travail d'équipe", es: 'trabajo en equipo', ja: 'チームワーク' },
  laboratory: { de: 'Labor', fr: 'laboratoire', es: 'laboratorio', ja: '研究室' },
};

export interface VideoFormat {
  name: string;
  width: number;
  height: number;
  format: string;
  compression: string;
  content_type: string;
  bit_depth: string;
  /** Data rate in megabits per second at 30 frames per second. */
  mbps: number;
}

/** The renditions a clip is sold in, largest first (landscape sizes; portrait clips swap them). */
export const VIDEO_FORMATS: readonly VideoFormat[] = [
  { name: '4K', width: 3840, height: 2160, format: 'mov', compression: 'Apple ProRes 422 HQ', content_type: 'video/quicktime', bit_depth: '10', mbps: 707 },
  { name: 'HD 1080p', width: 1920, height: 1080, format: 'mov', compression: 'Apple ProRes 422', content_type: 'video/quicktime', bit_depth: '10', mbps: 117 },
  { name: 'HD Web 720p', width: 1280, height: 720, format: 'mp4', compression: 'H.264', content_type: 'video/mp4', bit_depth: '8', mbps: 8 },
  { name: 'SD', width: 640, height: 360, format: 'mp4', compression: 'H.264', content_type: 'video/mp4', bit_depth: '8', mbps: 2 },
];

/** Every frame rate a clip is filmed at (frame_rates): the demo's clips go round all of them. */
export const FRAME_RATES = [23.98, 24, 25, 29.97, 30, 50, 59.94, 60] as const;
export const SHOT_SPEEDS = ['Real Time', 'Real Time', 'Slow Motion', 'Time Lapse'] as const;
export const CAMERAS = ['Sony FX6', 'Canon EOS C300 Mark III', 'RED Komodo 6K', 'Blackmagic URSA Mini Pro 12K', 'ARRI Alexa Mini LF', 'DJI Inspire 3'];


/*
 * Facts a photo library tags its assets with as typed keywords, which the search filters read
 * (src/search/search-documents.ts): each text becomes its filter value in snake case
 * ("Three Quarter Length" → three_quarter_length). The demo goes round every value, so every
 * value of moods, number_of_people, ethnicity, compositions and age_of_people finds something.
 */

/** Keyword type Mood; black and white comes from color_type. */
export const MOOD_KEYWORDS = ['Bold', 'Cool', 'Dramatic', 'Natural', 'Vivid', 'Warm'] as const;

/** Keyword type NumberOfPeople, by how many people an asset shows. */
export const NUMBER_OF_PEOPLE_KEYWORDS = { none: 'No People', one: 'One Person', two: 'Two People', group: 'Group Of People' } as const;

export const ETHNICITY_KEYWORDS = [
  'Black',
  'White',
  'East Asian',
  'Hispanic Latinx',
  'Japanese',
  'Middle Eastern',
  'Multiracial Person',
  'Multiethnic Group',
  'Native American First Nations',
  'Pacific Islander',
  'South Asian',
  'Southeast Asian',
] as const;

export const COMPOSITION_KEYWORDS = [
  'Abstract',
  'Candid',
  'Close-up',
  'Copy Space',
  'Cut Out',
  'Full Frame',
  'Full Length',
  'Head Shot',
  'Looking At Camera',
  'Macro',
  'Medium Shot',
  'Part Of A Series',
  'Portrait',
  'Sparse',
  'Still Life',
  'Three Quarter Length',
  'Waist Up',
  'Wide Shot',
] as const;

/** Keyword type Age: the age groups and ranges of the people shown. */
export const AGE_KEYWORDS = [
  'Newborn',
  'Baby',
  'Child',
  'Teenager',
  'Young Adult',
  'Adult',
  'Adults Only',
  'Mature Adult',
  'Senior Adult',
  '0-1 Months',
  '2-5 Months',
  '6-11 Months',
  '12-17 Months',
  '18-23 Months',
  '2-3 Years',
  '4-5 Years',
  '6-7 Years',
  '8-9 Years',
  '10-11 Years',
  '12-13 Years',
  '14-15 Years',
  '16-17 Years',
  '18-19 Years',
  '20-24 Years',
  '20-29 Years',
  '25-29 Years',
  '30-34 Years',
  '30-39 Years',
  '35-39 Years',
  '40-44 Years',
  '40-49 Years',
  '45-49 Years',
  '50-54 Years',
  '50-59 Years',
  '55-59 Years',
  '60-64 Years',
  '60-69 Years',
  '65-69 Years',
  '70-79 Years',
  '80-89 Years',
  '90 Plus Years',
  '100 Over',
] as const;

/** Keyword type Viewpoint: how the camera looks at a clip's subject (viewpoints). */
export const VIEWPOINT_KEYWORDS = [
  'Lockdown',
  'Panning',
  'Tracking Shot',
  'Aerial View',
  'High Angle View',
  'Low Angle View',
  'Tilt',
  'Point Of View',
] as const;

/** Keyword type Technique beside shot speed and colour (image_techniques). */
export const TECHNIQUE_KEYWORDS = ['Animation', 'Selective Focus'] as const;
