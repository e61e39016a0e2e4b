/**
 * The words of the synthetic calendar (`seedCalendar`): a category tree with title phrases per
 * subcategory, tags, adjectives and performers for titles, names and addresses of venues and
 * organizers, their cities (with coordinates), and cost inputs. Data only.
 */

/** [category, [subcategory, title phrases][]] */
export const CATEGORY_TREE: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, readonly string[]]>]> = [
  [
    'Music',
    [
      ['Jazz', ['Jazz Night', 'Jazz Quartet', 'Jazz Brunch', 'Late-Night Jazz Session']],
      ['Rock', ['Rock Show', 'Garage Rock Night', 'Rock Revival']],
      ['Classical', ['String Quartet', 'Symphony Evening', 'Piano Recital', 'Chamber Music Matinee']],
      ['Folk', ['Folk Session', 'Singer-Songwriter Night', 'Bluegrass Jam']],
      ['Electronic', ['DJ Night', 'Techno Showcase', 'Ambient Listening Session']],
    ],
  ],
  [
    'Arts & Culture',
    [
      ['Theatre', ['Theatre Premiere', 'Improv Comedy', 'Shakespeare in the Park']],
      ['Film', ['Film Screening', 'Documentary Night', 'Short Film Festival']],
      ['Exhibitions', ['Gallery Opening', 'Photography Exhibition', 'Sculpture Walk']],
      ['Dance', ['Salsa Social', 'Ballet Performance', 'Tango Milonga']],
    ],
  ],
  [
    'Sports',
    [
      ['Running', ['5K Fun Run', 'Trail Run', 'Marathon Training Run']],
      ['Cycling', ['Group Ride', 'Gravel Ride', 'Bike Repair Clinic']],
      ['Football', ['Five-a-Side Tournament', 'Match Screening']],
    ],
  ],
  [
    'Food & Drink',
    [
      ['Tastings', ['Wine Tasting', 'Craft Beer Tasting', 'Cheese & Wine Evening']],
      ['Markets', ['Farmers Market', 'Night Market', 'Street Food Market']],
    ],
  ],
  [
    'Education',
    [
      ['Workshops', ['Pottery Workshop', 'Watercolour Workshop', 'Bread Baking Class']],
      ['Lectures', ['Public Lecture', 'Author Talk', 'History Talk']],
    ],
  ],
  [
    'Community',
    [
      ['Volunteering', ['Park Clean-Up', 'Food Bank Shift', 'Tree Planting']],
      ['Meetups', ['Book Club', 'Language Exchange', 'Board Game Night']],
    ],
  ],
  [
    'Business',
    [
      ['Networking', ['Founders Breakfast', 'Networking Mixer']],
      ['Conferences', ['Industry Conference', 'Startup Pitch Night']],
    ],
  ],
  ['Family', [['Kids', ['Story Time', 'Family Science Day', 'Puppet Show']]]],
  ['Health & Wellness', [['Yoga', ['Sunrise Yoga', 'Yoga in the Park', 'Meditation Circle']]]],
  ['Technology', [['Hackathons', ['Weekend Hackathon', 'Code Retreat', 'Open Source Sprint']]]],
];

export const BASE_TAGS = [
  'Free',
  'Outdoor',
  'Indoor',
  'Family Friendly',
  'Weekend',
  'Evening',
  'All Ages',
  '18+',
  'Live',
  'Online Tickets',
  'Wheelchair Accessible',
  'Dog Friendly',
  'Beginners',
  'Advanced',
  'Summer',
  'Winter',
  'Festival',
  'Charity',
  'Local',
  'International',
  'Workshop',
  'Series',
  'Premiere',
  'Sold Out Soon',
  'Members Only',
  'Student Discount',
  'Seniors',
  'Drop-In',
  'Booking Required',
  'Bring Your Own',
];

export const ADJECTIVES = [
  'Midsummer',
  'Autumn',
  'Winter',
  'Spring',
  'Sunday',
  'Friday',
  'Moonlight',
  'Open-Air',
  'Rooftop',
  'Riverside',
  'Harbour',
  'Downtown',
  'Neighbourhood',
  'Annual',
  'Grand',
  'Intimate',
  'Candlelight',
  'Twilight',
  'Morning',
  'Lakeside',
  'Garden',
  'Community',
  'Secret',
  'Pop-Up',
];
export const PERFORMERS = [
  'The Blue Lanterns',
  'Maria Okafor',
  'The Night Owls',
  'Kenji Watanabe',
  'Orchestra Nova',
  'The Paper Boats',
  'Lena Fischer',
  'The Quiet Hours',
  'Samuel Adeyemi',
  'Copper & Pine',
  'The Velvet Static',
  'Ana Lucía Torres',
  'North Quarter',
  'Ibrahim Haddad',
  'The Long Weekend',
  'Priya Raman',
  'Saltwater Choir',
  'Tomás Novak',
  'The Lighthouse Keepers',
  'Grace Whitfield',
];
export const VENUE_FIRST = [
  'Blue Note',
  'Old Mill',
  'Riverside',
  'Union',
  'Harbour',
  'Crown',
  'Granary',
  'Foundry',
  'Orchard',
  'Library',
  'Market',
  'Station',
  'Lantern',
  'Copperfield',
  'Meridian',
  'Parkside',
  'Westgate',
  'Northlight',
  'Elmwood',
  'Kingsway',
];
export const VENUE_KIND = ['Hall', 'Theatre', 'Club', 'Pavilion', 'Arts Centre', 'Brewery', 'Gallery', 'Studio', 'Park', 'Community Centre', 'Library', 'Arena'];
export const STREETS = ['Main', 'High', 'Station', 'Church', 'Mill', 'Park', 'Victoria', 'Market', 'Bridge', 'King', 'Queen', 'Elm', 'Oak', 'Maple', 'River'];
export const STREET_KIND = ['Street', 'Road', 'Avenue', 'Lane', 'Boulevard'];
/** [city, state, province, country, zip prefix, latitude, longitude of the centre] */
export const CITIES: ReadonlyArray<readonly [string, string, string, string, string, number, number]> = [
  ['Springfield', 'IL', '', 'United States', '627', 39.7817, -89.6501],
  ['Portland', 'OR', '', 'United States', '972', 45.5152, -122.6784],
  ['Austin', 'TX', '', 'United States', '787', 30.2672, -97.7431],
  ['Boston', 'MA', '', 'United States', '021', 42.3601, -71.0589],
  ['Denver', 'CO', '', 'United States', '802', 39.7392, -104.9903],
  ['Toronto', '', 'Ontario', 'Canada', 'M5V', 43.6532, -79.3832],
  ['Vancouver', '', 'British Columbia', 'Canada', 'V6B', 49.2827, -123.1207],
  ['Manchester', '', 'Greater Manchester', 'United Kingdom', 'M1', 53.4808, -2.2426],
  ['Bristol', '', '', 'United Kingdom', 'BS1', 51.4545, -2.5879],
  ['Berlin', '', 'Berlin', 'Germany', '101', 52.52, 13.405],
  ['Lyon', '', 'Auvergne-Rhône-Alpes', 'France', '690', 45.764, 4.8357],
  ['Melbourne', '', 'Victoria', 'Australia', '300', -37.8136, 144.9631],
];
export const ORGANIZER_FIRST = ['Friends of', 'Society for', 'Collective of', 'Guild of', 'Club for', 'Association of', 'Network of', 'Circle of'];
export const ORGANIZER_TOPIC = [
  'Live Music',
  'Modern Art',
  'Urban Running',
  'Slow Food',
  'Lifelong Learning',
  'Neighbourhood Action',
  'Small Business',
  'Young Families',
  'Mindful Living',
  'Open Technology',
  'Independent Film',
  'Folk Traditions',
  'Craft Beer',
  'Community Gardens',
  'Street Dance',
];
export const COSTS = ['', '', '', '', '5', '10', '15', '$20', '$25', '10 - 25', 'Free', '€12', '8.50', '$5 - $15'];
